#include "core/text/SentencePieceTokenizer.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/base/ProgramPaths.h"
#include "core/text/spm/SpmApi.h"

#include <dlfcn.h>

#include <filesystem>

namespace core {

namespace {

const char* kModule = "libattnscope_spm.so";

#if defined(__SANITIZE_ADDRESS__)
// AddressSanitizer's dlopen interceptor dies on RTLD_DEEPBIND (google/sanitizers#611): a library bound deep
// could reach libc's malloc before ASan's and hand ASan memory it never saw. That does not happen here: the
// module is built instrumented too, so libasan comes first among its libraries, and SentencePiece, bound
// within the module's scope, still allocates through ASan. The sanitized build therefore calls glibc's own
// dlopen, past the interceptor, and checks the premise instead of trusting it.
void* openDeep(const std::string& path, std::string* error) {
    using Open = void* (*)(const char*, int);
    void* libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    const auto realOpen = libc ? reinterpret_cast<Open>(dlsym(libc, "dlopen")) : nullptr;
    if (!realOpen) {
        *error = path + ": glibc's dlopen was not found";
        return nullptr;
    }
    void* handle = realOpen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!handle) {
        *error = path + ": " + dlerror();
        return nullptr;
    }
    if (dlsym(handle, "malloc") != dlsym(RTLD_DEFAULT, "malloc")) {
        dlclose(handle);
        *error = path + ": not built with AddressSanitizer, so bound deep it would bypass ASan's malloc";
        return nullptr;
    }
    return handle;
}
#else
void* openDeep(const std::string& path, std::string* error) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!handle)
        *error = path + ": " + dlerror();
    return handle;
}
#endif

// Opened once, never closed: tokenizers may live until exit.
const spm::Api* openModule(std::string* error) {
    const auto candidates = libraryCandidates(kModule);
    std::error_code ec;
    for (const auto& path : candidates) {
        if (!std::filesystem::exists(path, ec))
            continue;
        // DEEPBIND: the module and SentencePiece bind to SentencePiece's own protobuf copy (SpmApi.h).
        void* handle = openDeep(path, error);
        if (!handle)
            continue;
        using Entry = const spm::Api* (*)();
        const auto entry = reinterpret_cast<Entry>(dlsym(handle, "attnscope_spm_api"));
        const spm::Api* api = entry ? entry() : nullptr;
        if (api && api->version == spm::kApiVersion)
            return api;
        *error = path + ": not the SentencePiece module of this attnscope build";
    }
    if (error->empty())
        *error = std::string(kModule) + " was not found beside the program nor in ../lib/attnscope";
    return nullptr;
}

const spm::Api& api() {
    static std::string error;
    static const spm::Api* const a = openModule(&error);
    if (!a)
        throw ModelError("SentencePiece is not available: " + error);
    return *a;
}

} // namespace

SentencePieceTokenizer::SentencePieceTokenizer(Vocabulary vocab, std::shared_ptr<const void> sp,
                                               std::string bytes)
    : Tokenizer(std::move(vocab)), sp_(std::move(sp)), bytes_(std::move(bytes)) {}

SentencePieceTokenizer::~SentencePieceTokenizer() = default;

std::unique_ptr<SentencePieceTokenizer> SentencePieceTokenizer::fromFile(const std::string& path) {
    return fromBytes(readFile(path), path);
}

std::unique_ptr<SentencePieceTokenizer> SentencePieceTokenizer::fromBytes(std::string bytes,
                                                                          const std::string& name) {
    const auto& lib = api();
    std::string error;
    void* raw = lib.load(bytes, &error);
    if (!raw)
        throw FormatError(name + ": not a SentencePiece model (" + error + ")");
    std::shared_ptr<const void> sp(raw,
                                   [release = lib.release](const void* p) { release(const_cast<void*>(p)); });
    std::vector<std::string> tokens;
    const int n = lib.pieceCount(raw);
    tokens.reserve(static_cast<std::size_t>(n));
    for (int id = 0; id < n; ++id)
        tokens.push_back(lib.idToPiece(raw, id));
    // Vocabulary::fromTokens would add missing specials in front and shift every id; refuse instead.
    for (const char* special : {Vocabulary::kPad, Vocabulary::kBos, Vocabulary::kEos, Vocabulary::kUnk}) {
        if (lib.idToPiece(raw, lib.pieceToId(raw, special)) != special)
            throw FormatError(name + ": the SentencePiece model has no piece " + special +
                              "; attnscope needs <pad>, <bos>, <eos> and <unk> (train with --pad_piece=<pad> "
                              "--bos_piece=<bos> --eos_piece=<eos> --unk_piece=<unk> and a pad_id)");
    }
    auto vocab = Vocabulary::fromTokens(tokens);
    if (vocab.size() != n)
        throw FormatError(name + ": the SentencePiece model has repeated pieces");
    return std::unique_ptr<SentencePieceTokenizer>(
        new SentencePieceTokenizer(std::move(vocab), std::move(sp), std::move(bytes)));
}

std::string SentencePieceTokenizer::train(const std::vector<std::string>& sentences, const TrainOptions& o) {
    const std::vector<std::pair<std::string, std::string>> options = {
        {"model_type", o.modelType},
        {"vocab_size", std::to_string(o.vocabSize)},
        {"character_coverage", std::to_string(o.characterCoverage)},
        {"byte_fallback", "true"},
        {"split_digits", "true"},
        {"pad_id", "0"},
        {"bos_id", "1"},
        {"eos_id", "2"},
        {"unk_id", "3"},
        {"pad_piece", Vocabulary::kPad},
        {"bos_piece", Vocabulary::kBos},
        {"eos_piece", Vocabulary::kEos},
        {"unk_piece", Vocabulary::kUnk},
        {"num_threads", std::to_string(o.threads)},
        {"input_sentence_size", std::to_string(o.maxSentences)},
        // Without shuffling the first maxSentences are read, so the same corpus gives the same model.
        {"shuffle_input_sentence", "false"},
        {"minloglevel", "2"},
    };
    std::string bytes, error;
    if (!api().train(sentences, options, &bytes, &error))
        throw InputError("training the SentencePiece model failed: " + error);
    return bytes;
}

std::vector<Token> SentencePieceTokenizer::tokenize(const std::string& text) const {
    const auto& lib = api();
    const int unk = lib.unkId(sp_.get());
    std::vector<Token> out;
    for (auto& p : lib.encode(sp_.get(), text)) {
        Token t;
        t.id = p.id;
        t.unknown = p.id == unk;
        // An unknown piece is shown as what was typed, not as <unk>.
        t.text = t.unknown ? std::move(p.surface) : std::move(p.piece);
        out.push_back(std::move(t));
    }
    return out;
}

std::string SentencePieceTokenizer::detokenize(const std::vector<int64_t>& ids) const {
    std::vector<int> kept;
    for (const auto id : ids)
        if (id >= 0 && id < vocab().size() && !vocab().isSpecial(id))
            kept.push_back(static_cast<int>(id));
    return api().decode(sp_.get(), kept);
}

std::vector<std::string> SentencePieceTokenizer::pieces(const std::string& text) const {
    std::vector<std::string> out;
    for (auto& p : api().encode(sp_.get(), text))
        out.push_back(std::move(p.piece));
    return out;
}

std::unique_ptr<Tokenizer> SentencePieceTokenizer::clone() const {
    return std::unique_ptr<Tokenizer>(new SentencePieceTokenizer(vocab(), sp_, bytes_));
}

} // namespace core
