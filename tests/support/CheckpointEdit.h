#pragma once
// Checkpoints broken on purpose, for the tests that check a foreign format is refused by name: the tensors
// of a safetensors file as F32 to remove one, change a shape or add one and write back, and a copy of a
// checkpoint folder broken as one line says.

#include "core/base/Errors.h"
#include "core/model/Model.h"
#include "core/model/Safetensors.h"

#include <QString>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

struct SafetensorsEdit {
    std::vector<std::string> names;
    std::vector<std::vector<int64_t>> shapes;
    std::vector<std::vector<float>> data;

    explicit SafetensorsEdit(const std::string& path) {
        const auto f = core::SafetensorsFile::open(path);
        for (const auto& t : f.tensors())
            add(t.name, t.shape, f.toFloat32(t));
    }
    void add(std::string name, std::vector<int64_t> shape, std::vector<float> values) {
        names.push_back(std::move(name));
        shapes.push_back(std::move(shape));
        data.push_back(std::move(values));
    }
    std::size_t index(const std::string& name) const {
        const auto at = std::find(names.begin(), names.end(), name);
        if (at == names.end())
            throw std::invalid_argument("the file has no tensor '" + name + "' to edit");
        return static_cast<std::size_t>(at - names.begin());
    }
    void remove(const std::string& name) {
        const auto i = index(name);
        names.erase(names.begin() + long(i));
        shapes.erase(shapes.begin() + long(i));
        data.erase(data.begin() + long(i));
    }
    void write(const std::string& path) const {
        std::vector<core::TensorToWrite> out;
        for (std::size_t i = 0; i < names.size(); ++i)
            out.push_back({names[i], shapes[i], data[i].data()});
        core::writeSafetensors(path, out);
    }
};

/// Copies the checkpoint folder base to dir and breaks it as `breakage` says: a JSON object is merged into
/// config.json; "rm NAME", "transpose NAME" (a matrix's two sizes swapped) and "add NAME" (a vector of
/// addLength ones) edit model.safetensors; any other verb goes to `other` with the tensors and the name.
inline void breakCheckpoint(
    const std::filesystem::path& base, const std::filesystem::path& dir, const QString& breakage,
    int64_t addLength,
    const std::function<void(SafetensorsEdit&, const QString& verb, const std::string& name)>& other = {}) {
    namespace fs = std::filesystem;
    fs::remove_all(dir);
    fs::copy(base, dir);
    if (breakage.startsWith(QLatin1Char('{'))) {
        nlohmann::json config;
        std::ifstream(dir / "config.json") >> config;
        config.update(nlohmann::json::parse(breakage.toStdString()));
        std::ofstream(dir / "config.json") << config.dump(2);
        return;
    }
    const auto weights = (dir / "model.safetensors").string();
    const auto verb = breakage.section(QLatin1Char(' '), 0, 0);
    const auto name = breakage.section(QLatin1Char(' '), 1).toStdString();
    SafetensorsEdit t(weights);
    if (verb == QStringLiteral("rm")) {
        t.remove(name);
    } else if (verb == QStringLiteral("transpose")) {
        auto& s = t.shapes[t.index(name)];
        std::swap(s[0], s[1]);
    } else if (verb == QStringLiteral("add")) {
        t.add(name, {addLength}, std::vector<float>(static_cast<std::size_t>(addLength), 1.0f));
    } else if (other) {
        other(t, verb, name);
    }
    t.write(weights);
}

/// Loading dir must fail with a message holding `fragment` and naming `file`.
inline void expectRefused(const std::filesystem::path& dir, const QString& fragment, const QString& file) {
    try {
        core::Model::load(dir.string(), core::DeviceChoice::Cpu);
        QFAIL("a broken checkpoint was accepted");
    } catch (const core::Error& e) {
        const auto msg = QString::fromStdString(e.what());
        QVERIFY2(msg.contains(fragment), qPrintable(msg));
        QVERIFY2(msg.contains(file), qPrintable(msg)); // the file is named
    }
}
