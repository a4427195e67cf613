// The module that links SentencePiece (see SpmApi.h for why it is separate). Built as a shared module and
// opened at run time; the rest of attnscope never links the library.

#include "core/text/spm/SpmApi.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <unordered_map>

namespace {

using Processor = sentencepiece::SentencePieceProcessor;

const Processor& proc(const void* model) {
    return *static_cast<const Processor*>(model);
}

void* load(const std::string& bytes, std::string* error) {
    auto p = std::make_unique<Processor>();
    const auto status = p->LoadFromSerializedProto(bytes);
    if (!status.ok()) {
        *error = status.ToString();
        return nullptr;
    }
    return p.release();
}

void release(void* model) {
    delete static_cast<Processor*>(model);
}

int pieceCount(const void* m) {
    return proc(m).GetPieceSize();
}

std::string idToPiece(const void* m, int id) {
    return proc(m).IdToPiece(id);
}

int pieceToId(const void* m, const std::string& piece) {
    return proc(m).PieceToId(piece);
}

int unkId(const void* m) {
    return proc(m).unk_id();
}

std::vector<core::spm::Piece> encode(const void* m, const std::string& text) {
    const auto spt = proc(m).EncodeAsImmutableProto(text);
    std::vector<core::spm::Piece> out;
    out.reserve(spt.pieces_size());
    for (const auto& p : spt.pieces())
        out.push_back({static_cast<int>(p.id()), p.piece(), p.surface()});
    return out;
}

std::string decode(const void* m, const std::vector<int>& ids) {
    std::string text;
    proc(m).Decode(ids, &text).IgnoreError(); // the caller passes only ids inside the vocabulary
    return text;
}

std::string decodePieces(const void* m, const std::vector<std::string>& pieces) {
    std::string text;
    proc(m).Decode(pieces, &text).IgnoreError(); // a piece the model lacks is kept as written
    return text;
}

// The trainer pulls sentences from here, so a corpus already in memory is not written to a file first.
class VectorIterator : public sentencepiece::SentenceIterator {
public:
    explicit VectorIterator(const std::vector<std::string>& v) : v_(v) {}
    bool done() const override { return i_ >= v_.size(); }
    void Next() override { ++i_; }
    const std::string& value() const override { return v_[i_]; }
    sentencepiece::util::Status status() const override { return {}; }

private:
    const std::vector<std::string>& v_;
    std::size_t i_ = 0;
};

bool train(const std::vector<std::string>& sentences,
           const std::vector<std::pair<std::string, std::string>>& options, std::string* model,
           std::string* error) {
    const std::unordered_map<std::string, std::string> args(options.begin(), options.end());
    VectorIterator it(sentences);
    const auto status = sentencepiece::SentencePieceTrainer::Train(args, &it, model);
    if (!status.ok())
        *error = status.ToString();
    return status.ok();
}

const core::spm::Api kApi = {
    core::spm::kApiVersion, load, release, pieceCount, idToPiece, pieceToId, unkId, encode, decode,
    decodePieces,           train};

} // namespace

extern "C" __attribute__((visibility("default"))) const core::spm::Api* attnscope_spm_api() {
    return &kApi;
}
