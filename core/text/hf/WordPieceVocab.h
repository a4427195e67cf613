#pragma once
// BERT folders saved before tokenizer.json existed carry only vocab.txt (one WordPiece token per line, the
// line number its id) and maybe tokenizer_config.json. This writes the tokenizer.json transformers'
// BertTokenizerFast converts such a folder into, so that one reader (HfTokenizer) serves both.

#include <string>

namespace core {

/// The tokenizer.json of a vocab.txt: BertNormalizer (lowercasing and accent stripping as
/// tokenizer_config.json's do_lower_case and strip_accents say; BertTokenizer's defaults, lowercase, when
/// configText is empty), BertPreTokenizer, WordPiece with "##" continuations and [UNK], a [CLS] $A [SEP]
/// template and the WordPiece decoder; the specials the vocabulary holds ([PAD], [UNK], [CLS], [SEP],
/// [MASK], or the names tokenizer_config.json gives) as added tokens. A token listed twice keeps its last
/// line's id. Throws FormatError naming `source` for a vocabulary without the unknown, CLS or SEP token.
std::string wordPieceTokenizerJson(const std::string& vocabText, const std::string& configText,
                                   const std::string& source);

} // namespace core
