#pragma once
// The SHA-256 of a model's weights file, so an export says exactly which weights made it. Computed once
// per file (and again only when its size or time changes): a GPT-2 folder's 500 MB take a second.

#include <QString>

namespace core {
class Model;
}

namespace ui {

class ModelFingerprint {
public:
    /// Hex SHA-256 of model.safetensors in the model's directory (of model.safetensors.index.json for sharded
    /// weights); empty for a model made in memory or a file that cannot be read.
    static QString weightsSha256(const core::Model& model);
};

} // namespace ui
