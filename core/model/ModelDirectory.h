#pragma once
// The one reader and writer of a model directory: config.json, the tokenizer file(s) and
// model.safetensors. config.json is parsed once and its format decided from that parse: ours (whose tensor
// names mirror the seed's make_model, so a state_dict saved by the seed's PyTorch code loads as it is) or a
// Hugging Face GPT-2 or Llama-family checkpoint (keys and module names mapped by Gpt2Checkpoint and
// LlamaCheckpoint).

#include "core/base/Runtime.h"
#include "core/model/Safetensors.h"

#include <nlohmann/json_fwd.hpp>

#include <memory>
#include <string>

namespace core {

struct ModelConfig;
struct ModelParts;
class Tokenizer;
} // namespace core
namespace torch::nn {
class Module;
}
namespace core {

enum class ModelFormat {
    Attnscope, ///< our config.json; the seed's tensor names
    Gpt2,      ///< a Hugging Face GPT-2 directory
    Llama,     ///< a Hugging Face Llama, Mistral or Qwen2 directory
    Bert,      ///< a Hugging Face BERT, RoBERTa or DistilBERT directory
    Marian     ///< a Hugging Face Marian (opus-mt) directory
};

class ModelDirectory {
public:
    /// The format of a parsed config.json: GPT-2 for "model_type": "gpt2", or, without a model_type, GPT-2's
    /// n_embd, n_layer and n_head; Llama for "llama", "mistral" and "qwen2"; the BERT family's and Marian's
    /// types; ours otherwise. Throws ModelError naming `source` for a Hugging Face model of another type
    /// ("t5", say), so the message says what was handed over.
    static ModelFormat formatOf(const nlohmann::json& config, const std::string& source);

    /// The config.json of a model directory in any format it reads, as read() would configure the model
    /// (a Hugging Face folder's tokenizer chosen by the files it has), without reading a weight: the one
    /// reader of a folder's config for whoever needs its shape before or without loading it. Throws
    /// ModelError or ConfigError naming the folder or the file, as read() does.
    static ModelConfig readConfig(const std::string& dir);

    /// Reads and checks everything a model needs. Throws ModelError, ConfigError, FormatError or IoError
    /// naming the file (and the tensor) that is wrong; nothing is half-loaded.
    static std::unique_ptr<ModelParts> read(const std::string& dir, DeviceChoice device);

    /// Writes config.json, the tokenizer file(s) and model.safetensors as a folder that then takes dir's
    /// place in one step (dir is created, or replaced when it holds a model; other files of a replaced model
    /// folder are kept): a crash, a full disk or a weight beyond F16's range (an InputError naming the
    /// tensor) leaves the previous folder whole. A non-empty folder without config.json is refused (IoError)
    /// rather than replaced. src is null for decoder-only models or when both sides share the target's
    /// tokenizer file. net is the network of config's family (a classifier's classes are in config.json).
    static void write(const std::string& dir, const ModelConfig& config, const Tokenizer* src,
                      const Tokenizer& tgt, const torch::nn::Module& net, DType dtype);
};

} // namespace core
