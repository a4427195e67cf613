#pragma once
// A loaded SentencePiece model: the library's processor behind the module that keeps its protobuf copy
// apart (spm/SpmApi.h says why), held by a shared pointer so copies are cheap and share one processor. The
// tokenizers that read SentencePiece models (ours, and Marian's pieces mapped through its vocab.json) use
// it; nothing else reaches the library.

#include "core/text/spm/SpmApi.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace core {

class SpmProcessor {
public:
    /// Loads the bytes of a .model file; name stands for the file in messages. Throws FormatError naming
    /// it when it is not a SentencePiece model, ModelError when the library's module cannot be opened.
    static SpmProcessor fromBytes(std::string bytes, const std::string& name);
    /// Trains with SentencePiece's key/value options and returns the .model bytes. Throws InputError with
    /// the library's reason when it fails.
    static std::string train(const std::vector<std::string>& sentences,
                             const std::vector<std::pair<std::string, std::string>>& options);

    int size() const;
    std::string idToPiece(int id) const;
    /// The unknown piece's id for a piece the model does not have.
    int pieceToId(const std::string& piece) const;
    int unkId() const;
    /// The pieces of text with their ids and the input they cover.
    std::vector<spm::Piece> encode(const std::string& text) const;
    std::string decode(const std::vector<int>& ids) const;
    /// Joins pieces by name; one the model lacks is kept as written.
    std::string decodePieces(const std::vector<std::string>& pieces) const;
    /// The .model file.
    const std::string& bytes() const { return bytes_; }

private:
    SpmProcessor(std::shared_ptr<const void> sp, std::string bytes);
    std::shared_ptr<const void> sp_; // the library's processor, used const only: safe to share
    std::string bytes_;
};

} // namespace core
