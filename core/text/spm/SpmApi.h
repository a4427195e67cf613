#pragma once
// The SentencePiece library behind a table of functions, in a module of its own.
//
// Debian's libsentencepiece carries its own copy of protobuf-lite (3.14) and exports those symbols, while
// LibTorch loads the system's libprotobuf (3.21). Linked into one program, whichever copy comes first wins
// every protobuf call of both, and the program crashes before main(). So SentencePiece is loaded only
// into a module opened with RTLD_LOCAL | RTLD_DEEPBIND (SpmProcessor.cpp does that): the module
// and the library bind to their own copy, and nothing else ever sees it.

#include <string>
#include <utility>
#include <vector>

namespace core::spm {

struct Piece {
    int id = 0;
    std::string piece;   ///< as the model writes it ("▁house", "<0xC3>")
    std::string surface; ///< the input text it covers
};

/// Bump when the table changes, so a stale module is refused rather than called wrongly.
constexpr int kApiVersion = 2;

struct Api {
    int version;
    /// A loaded model, or null with *error set.
    void* (*load)(const std::string& bytes, std::string* error);
    void (*release)(void* model);
    int (*pieceCount)(const void* model);
    std::string (*idToPiece)(const void* model, int id);
    int (*pieceToId)(const void* model, const std::string& piece);
    int (*unkId)(const void* model);
    std::vector<Piece> (*encode)(const void* model, const std::string& text);
    std::string (*decode)(const void* model, const std::vector<int>& ids);
    /// Joins pieces by name; one the model lacks is kept as written (SentencePiece's DecodePieces).
    std::string (*decodePieces)(const void* model, const std::vector<std::string>& pieces);
    /// Trains with SentencePiece's key/value options; the .model bytes in *model, or false with *error.
    bool (*train)(const std::vector<std::string>& sentences,
                  const std::vector<std::pair<std::string, std::string>>& options, std::string* model,
                  std::string* error);
};

} // namespace core::spm

/// The module's one exported symbol.
extern "C" const core::spm::Api* attnscope_spm_api();
