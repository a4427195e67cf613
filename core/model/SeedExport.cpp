#include "core/model/SeedExport.h"

#include "core/base/Errors.h"
#include "core/model/ModelDirectory.h"
#include "core/model/ModelParts.h"
#include "core/model/nn/PositionalTable.h"

#include <torch/torch.h>

#include <cmath>
#include <map>
#include <sstream>

namespace core {

namespace {

void refuse(const std::string& why) {
    throw InputError("the seed's make_model cannot express this model: " + why);
}

void checkExpressible(const ModelConfig& c) {
    if (c.architecture != Architecture::EncoderDecoder)
        refuse(std::string("its architecture is ") + toString(c.architecture) +
               "; make_model builds an encoder-decoder");
    if (c.postNorm || c.embeddingNorm)
        refuse("post_norm or embedding_norm is on; the seed normalises before each sublayer only");
    if (c.tieOutput && c.tiedOutputBias)
        refuse("tied_output_bias is on; the seed's Generator is untied");
    if (c.positional != PositionalEncoding::Sinusoidal)
        refuse(std::string("positional_encoding is ") + toString(c.positional) +
               "; the seed's PositionalEncoding is sinusoidal");
    if (c.sinusoidHalves)
        refuse("sinusoid_halves is on; the seed's PositionalEncoding interleaves sines and cosines");
    if (c.layerNorm != LayerNormKind::Seed)
        refuse(std::string("layer_norm is ") + toString(c.layerNorm) +
               "; the seed's LayerNorm adds eps to the standard deviation (\"seed\")");
    if (c.gatedFeedForward)
        refuse("gated_feed_forward is on; the seed's feed-forward is w_2(relu(w_1 x))");
    if (!c.qkvBias || !c.linearBias)
        refuse("qkv_bias or linear_bias is off; every linear map of the seed's model has a bias");
    if (!c.outputBias && !c.tieOutput)
        refuse("output_bias is off; the seed's Generator has a bias");
    if (c.normEps != 1e-6) {
        std::ostringstream eps;
        eps << c.normEps;
        refuse("norm_eps is " + eps.str() + "; the seed's LayerNorm uses 1e-6");
    }
    if (c.dFf == 0)
        refuse("d_ff is 0 (attention-only); every layer of the seed's make_model has a feed-forward");
    if (c.activation != Activation::Relu)
        refuse(std::string("activation is ") + toString(c.activation) +
               "; the seed's feed-forward uses ReLU");
    if (c.maxLen > kSeedPositions)
        refuse("max_len is " + std::to_string(c.maxLen) + "; the seed's PositionalEncoding has " +
               std::to_string(kSeedPositions) + " positions");
}

} // namespace

void writeSeedDirectory(const Model& model, const std::string& dir) {
    const auto& p = parts(model);
    const auto& c = p.config;
    checkExpressible(c);
    ModelConfig s = c;
    s.shareEmbeddings = false;
    s.tieOutput = false;
    s.scaleEmbeddings = true;
    auto net = buildNetwork(s);
    torch::NoGradGuard noGrad;
    std::map<std::string, torch::Tensor> ours;
    for (const auto& item : p.net->named_parameters(true))
        ours[item.key()] = item.value().detach().to(torch::kCPU, torch::kFloat32);
    const std::string srcTable = "src_embed.0.lut.weight", tgtTable = "tgt_embed.0.lut.weight";
    // With scale_embeddings off ours adds the table as it is; the seed multiplies by √d_model first.
    const double unscale = c.scaleEmbeddings ? 1.0 : 1.0 / std::sqrt(static_cast<double>(c.dModel));
    const auto& outputTable = c.shareEmbeddings ? ours.at(srcTable) : ours.at(tgtTable);
    for (auto& item : net->named_parameters(true)) {
        const auto& name = item.key();
        torch::Tensor from;
        if (name == tgtTable && c.shareEmbeddings)
            from = ours.at(srcTable);
        else if (name == "generator.proj.weight" && c.tieOutput)
            from = outputTable; // (V, C): the output layer reads the table unscaled
        else if (name == "generator.proj.bias" && c.tieOutput)
            from = torch::zeros({s.tgtVocabSize}); // (V)
        else
            from = ours.at(name);
        if (name == srcTable || name == tgtTable)
            from = from * unscale;
        item.value().copy_(from);
    }
    const auto table = nn::sinusoidalTable(kSeedPositions, c.dModel).unsqueeze(0); // (1, 5000, C)
    net->src_embed->positions->setSinusoidal(table);
    net->tgt_embed->positions->setSinusoidal(table.clone());
    ModelDirectory::write(dir, s, p.srcTokenizer.get(), *p.tgtTokenizer, *net, DType::F32);
}

} // namespace core
