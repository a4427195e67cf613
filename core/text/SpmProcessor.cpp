#include "core/text/SpmProcessor.h"

#include "core/base/Errors.h"
#include "core/base/ProgramPaths.h"

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

SpmProcessor::SpmProcessor(std::shared_ptr<const void> sp, std::string bytes)
    : sp_(std::move(sp)), bytes_(std::move(bytes)) {}

SpmProcessor SpmProcessor::fromBytes(std::string bytes, const std::string& name) {
    const auto& lib = api();
    std::string error;
    void* raw = lib.load(bytes, &error);
    if (!raw)
        throw FormatError(name + ": not a SentencePiece model (" + error + ")");
    std::shared_ptr<const void> sp(raw,
                                   [release = lib.release](const void* p) { release(const_cast<void*>(p)); });
    return SpmProcessor(std::move(sp), std::move(bytes));
}

std::string SpmProcessor::train(const std::vector<std::string>& sentences,
                                const std::vector<std::pair<std::string, std::string>>& options) {
    std::string bytes, error;
    if (!api().train(sentences, options, &bytes, &error))
        throw InputError("training the SentencePiece model failed: " + error);
    return bytes;
}

int SpmProcessor::size() const {
    return api().pieceCount(sp_.get());
}

std::string SpmProcessor::idToPiece(int id) const {
    return api().idToPiece(sp_.get(), id);
}

int SpmProcessor::pieceToId(const std::string& piece) const {
    return api().pieceToId(sp_.get(), piece);
}

int SpmProcessor::unkId() const {
    return api().unkId(sp_.get());
}

std::vector<spm::Piece> SpmProcessor::encode(const std::string& text) const {
    return api().encode(sp_.get(), text);
}

std::string SpmProcessor::decode(const std::vector<int>& ids) const {
    return api().decode(sp_.get(), ids);
}

std::string SpmProcessor::decodePieces(const std::vector<std::string>& pieces) const {
    return api().decodePieces(sp_.get(), pieces);
}

} // namespace core
