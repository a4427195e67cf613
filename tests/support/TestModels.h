#pragma once
// Small random models of every architecture variant, shared by the core tests.

#include "core/model/Model.h"

#include <QTest>

#include <memory>

inline core::ModelConfig smallConfig(core::Architecture arch, core::PositionalEncoding pos,
                                     core::LayerNormKind norm = core::LayerNormKind::Seed) {
    core::ModelConfig c;
    c.name = "test";
    c.architecture = arch;
    c.encoderLayers = 2;
    c.decoderLayers = 2;
    c.dModel = 32;
    c.heads = 4;
    c.dFf = 64;
    c.srcVocabSize = 40;
    c.tgtVocabSize = 40;
    c.maxLen = 64;
    c.positional = pos;
    c.layerNorm = norm;
    return c;
}

inline std::shared_ptr<const core::Model> randomModel(const core::ModelConfig& c, uint64_t seed = 1) {
    return core::Model::createRandom(c, core::Model::defaultVocabulary(c.srcVocabSize),
                                     core::Model::defaultVocabulary(c.tgtVocabSize), seed,
                                     core::DeviceChoice::Cpu);
}
