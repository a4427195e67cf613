#include "core/model/ModelDirectory.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/base/FolderLinks.h"
#include "core/base/JsonText.h"
#include "core/model/BertCheckpoint.h"
#include "core/model/Gpt2Checkpoint.h"
#include "core/model/LlamaCheckpoint.h"
#include "core/model/MarianCheckpoint.h"
#include "core/model/ModelParts.h"
#include "core/model/WeightIO.h"
#include "core/text/MarianTokenizer.h"
#include "core/text/TokenizerFactory.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <filesystem>
#include <set>

namespace core {

namespace fs = std::filesystem;

namespace {

// One side's tokenizer, held to the size config.json gives it (`sizeField` names that key in messages).
std::unique_ptr<Tokenizer> readSide(const ModelConfig& c, const std::string& dir, const std::string& file,
                                    int64_t expected, const char* sizeField, const WeightFiles& weights) {
    auto spec = c.tokenizerSpec();
    spec.rows = expected; // a tokenizer.json may name fewer ids than the model has rows
    // A tokenizer.json's table is padded to those rows, so they are held to the weights first: the token
    // embeddings have one row per id, and no tensor has fewer rows than that (vocab_size 16,777,215 on a
    // 264-row checkpoint built 16.7 million names before any check). Other tokenizers are not padded; their
    // own count is compared below.
    if (spec.kind == TokenizerKind::HfJson) {
        int64_t rows = 0;
        for (const auto& info : weights.tensors())
            if (!info.shape.empty())
                rows = std::max(rows, info.shape.front());
        if (expected > rows)
            throw ModelError(weights.path() + ": config.json's " + sizeField + " is " +
                             std::to_string(expected) + ", but no tensor has more than " +
                             std::to_string(rows) + " rows, and the token embeddings have one row per token");
    }
    auto t = readTokenizer(spec, dir, file);
    // Marian's ids are vocab.json's, whichever side's .spm cuts the text.
    const auto counted =
        c.tokenizer == TokenizerKind::Marian ? std::string(MarianTokenizer::kVocabFile) : file;
    if (t->vocab().size() != expected)
        throw ModelError(dir + "/" + counted + ": holds " + std::to_string(t->vocab().size()) +
                         " tokens but config.json's " + sizeField + " is " + std::to_string(expected));
    return t;
}

// A Hugging Face folder's tokenizer, by the files it has: tokenizer.json, or vocab.json with merges.txt.
// GPT-2's pair comes first where both are there, as GPT-2 folders were always read; the Llama family's
// tokenizer.json, which also knows its added and special tokens. The BERT family reads tokenizer.json, or
// an older folder's WordPiece vocab.txt as the tokenizer.json it stands for (readTokenizer).
void chooseHfTokenizer(ModelConfig& c, const fs::path& dir, ModelFormat format) {
    std::error_code ec;
    const bool json = fs::exists(dir / "tokenizer.json", ec);
    if (format == ModelFormat::Marian) { // marianConfigFromParsed() named source.spm and target.spm
        for (const char* file : {"source.spm", "target.spm", "vocab.json"})
            if (!fs::exists(dir / file, ec))
                throw ModelError(dir.string() + ": no tokenizer: missing " + file +
                                 " (a Marian folder's tokenizer is source.spm and target.spm, numbered by "
                                 "vocab.json)");
        return;
    }
    if (format == ModelFormat::Bert) {
        if (!json && !fs::exists(dir / "vocab.txt", ec))
            throw ModelError(dir.string() + ": no tokenizer: neither tokenizer.json nor vocab.txt (attnscope "
                                            "reads a BERT-family folder's tokenizer from these)");
        c.tokenizer = TokenizerKind::HfJson;
        c.srcVocabFile = c.tgtVocabFile = "tokenizer.json";
        return;
    }
    const bool pairFirst = format == ModelFormat::Gpt2;
    const bool pair = fs::exists(dir / "vocab.json", ec) && fs::exists(dir / "merges.txt", ec);
    if (json && (!pair || !pairFirst)) {
        c.tokenizer = TokenizerKind::HfJson;
        c.srcVocabFile = c.tgtVocabFile = "tokenizer.json";
    } else if (!pair) {
        throw ModelError(
            dir.string() + ": no tokenizer: neither tokenizer.json nor vocab.json with merges.txt" +
            (fs::exists(dir / "tokenizer.model", ec)
                 ? " (a SentencePiece tokenizer.model alone is not read: the folder's tokenizer.json is)"
                 : ""));
    }
}

// A folder's config.json, parsed once, its format decided from that parse and the model configured from it.
struct ConfigFile {
    nlohmann::json json;
    std::string path;
    ModelFormat format = ModelFormat::Attnscope;
    ModelConfig config;
};

ConfigFile readConfigFile(const std::string& dirName) {
    const fs::path dir(dirName);
    if (!fs::is_directory(dir))
        throw ModelError(dirName + ": not a model directory");
    ConfigFile f;
    f.path = (dir / "config.json").string();
    if (!fs::exists(f.path))
        throw ModelError(dirName + ": missing config.json");
    f.json = parseJsonObject(readFolderFile(f.path), f.path);
    f.format = ModelDirectory::formatOf(f.json, f.path);
    f.config = f.format == ModelFormat::Gpt2     ? gpt2ConfigFromParsed(f.json, f.path)
               : f.format == ModelFormat::Llama  ? llamaConfigFromParsed(f.json, f.path)
               : f.format == ModelFormat::Bert   ? bertConfigFromParsed(f.json, f.path)
               : f.format == ModelFormat::Marian ? marianConfigFromParsed(f.json, f.path)
                                                 : ModelConfig::fromParsed(f.json, f.path);
    if (f.format != ModelFormat::Attnscope)
        chooseHfTokenizer(f.config, dir, f.format);
    return f;
}

// The tokenizer's files a model directory holds, by name: what writeFiles writes beside the weights and
// config.json.
std::vector<std::pair<std::string, std::string>> tokenizerFiles(const ModelConfig& c, const Tokenizer* src,
                                                                const Tokenizer& tgt) {
    std::vector<std::pair<std::string, std::string>> files;
    const bool classes = c.family == Family::AttentionClassifier; // config.json names them
    if (!classes) {
        files.emplace_back(c.tgtVocabFile, tgt.fileContents());
        for (auto& extra : tgt.extraFiles(c.mergesFile))
            files.emplace_back(std::move(extra));
    }
    if (src && (classes || c.srcVocabFile != c.tgtVocabFile))
        files.emplace_back(c.srcVocabFile, src->fileContents());
    return files;
}

// The files of a model directory, into dir (which exists).
void writeFiles(const fs::path& dir, const ModelConfig& c,
                const std::vector<std::pair<std::string, std::string>>& tokenizer,
                const torch::nn::Module& net, DType dtype) {
    // Parameters take the dtype asked for. The sinusoidal tables (the only tensors that are not parameters)
    // stay F32: the loader adds a stored table as it is, without comparing it with the formula, so an F16
    // table would shift every position's encoding by up to 2.4e-4 for a saving of 2·max_len·d_model·2 bytes
    // (128 KB of 15 MB for en-es). F32 keeps them bit-identical to the computed ones; mixed dtypes are valid
    // safetensors, and the seed's load_state_dict converts on copy.
    std::set<std::string> parameters;
    for (const auto& item : net.named_parameters(true))
        parameters.insert(item.key());
    const auto tensors =
        c.recurrent() ? parametersToSave(net) : tensorsToSave(static_cast<const nn::TransformerImpl&>(net));
    std::vector<TensorToWrite> out;
    for (const auto& [name, t] : tensors)
        out.push_back(
            {name, t.sizes().vec(), t.data_ptr<float>(), parameters.count(name) ? dtype : DType::F32});
    writeSafetensors((dir / "model.safetensors").string(), out,
                     {{"format", "pt"}, {"producer", "attnscope"}});
    writeFileAtomically((dir / "config.json").string(), c.toJson());
    for (const auto& [name, contents] : tokenizer)
        writeFileAtomically((dir / name).string(), contents);
}

} // namespace

ModelFormat ModelDirectory::formatOf(const nlohmann::json& j, const std::string& source) {
    if (j.contains("model_type") && j["model_type"].is_string()) {
        const auto type = j["model_type"].get<std::string>();
        if (type == "gpt2")
            return ModelFormat::Gpt2;
        if (isLlamaFamily(type))
            return ModelFormat::Llama;
        if (isBertFamily(type))
            return ModelFormat::Bert;
        if (isMarian(type))
            return ModelFormat::Marian;
        throw ModelError(
            source + ": a Hugging Face \"" + type +
            "\" model; attnscope reads GPT-2 (\"gpt2\"), Llama, Mistral and Qwen2 (\"llama\", "
            "\"mistral\", \"qwen2\"), BERT, RoBERTa and DistilBERT (\"bert\", \"roberta\", "
            "\"xlm-roberta\", \"camembert\", \"distilbert\"), Marian (\"marian\") checkpoints and its "
            "own format");
    }
    if (!j.contains("model_type") && j.contains("n_embd") && j.contains("n_layer") && j.contains("n_head"))
        return ModelFormat::Gpt2; // the original release's config.json has no model_type
    return ModelFormat::Attnscope;
}

ModelConfig ModelDirectory::readConfig(const std::string& dir) {
    return readConfigFile(dir).config;
}

std::unique_ptr<ModelParts> ModelDirectory::read(const std::string& dirName, DeviceChoice device) {
    configureThreads();
    auto configFile = readConfigFile(dirName);
    const auto& json = configFile.json;
    const auto& configPath = configFile.path;
    const auto format = configFile.format;
    const bool gpt2 = format == ModelFormat::Gpt2, hf = format != ModelFormat::Attnscope;

    auto parts = std::make_unique<ModelParts>();
    parts->config = std::move(configFile.config);
    parts->directory = dirName;
    const auto file = WeightFiles::open(dirName);
    if (format == ModelFormat::Bert) // the head is there or not by the checkpoint's class, not its config
        parts->config.maskedLmHead = bertHasMaskedLmHead(file, json);
    const auto& c = parts->config;
    parts->tgtTokenizer = c.family == Family::AttentionClassifier
                              ? classTokenizer(c)
                              : readSide(c, dirName, c.tgtVocabFile, c.tgtVocabSize,
                                         hf ? "vocab_size" : "tgt_vocab_size", file);
    if (c.twoSided())
        parts->srcTokenizer =
            readSide(c, dirName, c.srcVocabFile, c.srcVocabSize, hf ? "vocab_size" : "src_vocab_size", file);
    if (format == ModelFormat::Marian)
        checkMarianSpecialIds(json, parts->tgtTokenizer->vocab(), configPath);
    // A config.json whose sizes ask for far more than the weights file holds is refused before anything is
    // allocated (d_model 65536 with d_ff 2^20 asked for terabytes and aborted). One that is a little off is
    // allocated and then told which tensor and shape disagree, which says more.
    int64_t stored = 0;
    for (const auto& info : file.tensors())
        stored += info.numel();
    if (c.parameterCount() > 2 * stored + (int64_t{1} << 24))
        throw ModelError(file.path() + ": holds " + std::to_string(stored) +
                         " values, but config.json describes a model of " +
                         std::to_string(c.parameterCount()) +
                         " parameters (its sizes or layer counts disagree with the weights)");
    buildFamilyNetwork(*parts);
    if (gpt2)
        loadGpt2Weights(*parts->net, file);
    else if (format == ModelFormat::Llama)
        loadLlamaWeights(*parts->net, file, json);
    else if (format == ModelFormat::Bert)
        loadBertWeights(*parts->net, file, json);
    else if (format == ModelFormat::Marian)
        loadMarianWeights(*parts->net, file, json);
    else if (c.recurrent())
        loadParameters(parts->module(), file);
    else
        loadWeights(*parts->net, file);
    parts->device = resolveDevice(device);
    parts->module().to(parts->device);
    return parts;
}

void ModelDirectory::write(const std::string& dirName, const ModelConfig& c, const Tokenizer* src,
                           const Tokenizer& tgt, const torch::nn::Module& net, DType dtype) {
    // The files are written into a fresh sibling folder that then takes the target's place in one step: a
    // crash or a full disk mid-save leaves the previous model whole (or no folder), never new weights beside
    // an old config.json.
    const fs::path dir = fs::path(dirName).lexically_normal();
    const fs::path target = dir.filename().empty() ? dir.parent_path() : dir;
    std::error_code ec;
    // A folder that is not a model attnscope may replace is refused before anything is written (a user's
    // project folder that happens to hold a config.json among other things is not one); replaceDirectory
    // checks again, with the files written, before it touches anything.
    const auto tokenizer = tokenizerFiles(c, src, tgt);
    std::set<std::string> names{"config.json", "model.safetensors", kFolderMarker};
    for (const auto& file : tokenizer)
        names.insert(file.first);
    if (const auto refusal = replaceRefusal(target.string(), names); !refusal.empty())
        throw IoError("cannot write " + dirName + ": " + refusal);
    const auto parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
    fs::create_directories(parent, ec);
    if (ec)
        throw IoError("cannot create " + parent.string() + ": " + ec.message());
    const fs::path fresh(createDirectoryBeside(target.string()));
    try {
        writeFiles(fresh, c, tokenizer, net, dtype);
        // Files of a folder attnscope made that a model does not write (a README, a licence) stay.
        if (fs::exists(target / kFolderMarker, ec))
            for (const auto& entry : fs::directory_iterator(target))
                if (entry.symlink_status().type() == fs::file_type::regular &&
                    !fs::exists(fresh / entry.path().filename()))
                    fs::copy_file(entry.path(), fresh / entry.path().filename());
        replaceDirectory(fresh.string(), target.string());
    } catch (...) {
        fs::remove_all(fresh, ec);
        throw;
    }
}

} // namespace core
