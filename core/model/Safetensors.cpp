#include "core/model/Safetensors.h"

#include "core/base/Errors.h"
#include "core/base/FileReader.h"
#include "core/base/Files.h"
#include "core/base/Float16.h"
#include "core/base/JsonText.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace core {

namespace {

// The format is little-endian; the raw data is used as is, so the host must be too.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "safetensors reading assumes a little-endian host");

constexpr uint64_t kMaxHeader = 100ull << 20;

std::string shapeText(const std::vector<int64_t>& s) {
    std::string o = "[";
    for (std::size_t i = 0; i < s.size(); ++i)
        o += (i ? ", " : "") + std::to_string(s[i]);
    return o + "]";
}

float bf16ToFloat(uint16_t b) {
    const uint32_t bits = static_cast<uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

} // namespace

std::size_t dtypeSize(DType d) {
    switch (d) {
    case DType::I64:
        return 8;
    case DType::F32:
        return 4;
    case DType::F16:
    case DType::BF16:
        return 2;
    case DType::U8:
    case DType::Bool:
        return 1;
    }
    return 0;
}
const char* dtypeName(DType d) {
    switch (d) {
    case DType::F32:
        return "F32";
    case DType::F16:
        return "F16";
    case DType::BF16:
        return "BF16";
    case DType::U8:
        return "U8";
    case DType::Bool:
        return "BOOL";
    case DType::I64:
        return "I64";
    }
    return "?";
}

int64_t TensorInfo::numel() const {
    int64_t n = 1;
    for (auto d : shape)
        n *= d;
    return n;
}

SafetensorsFile SafetensorsFile::open(const std::string& path) {
    SafetensorsFile f;
    f.path_ = path;
    f.file_ = FileReader::open(path);
    f.size_ = f.file_->size();
    return validated(std::move(f));
}

SafetensorsFile SafetensorsFile::fromBytes(std::string bytes, std::string displayName) {
    SafetensorsFile f;
    f.path_ = std::move(displayName);
    f.memory_ = std::make_shared<const std::string>(std::move(bytes));
    f.size_ = f.memory_->size();
    return validated(std::move(f));
}

void SafetensorsFile::readAt(uint64_t offset, std::size_t n, char* dst) const {
    if (file_)
        file_->readAt(offset, n, dst);
    else
        std::memcpy(dst, memory_->data() + offset, n); // validated: within the bytes
}

namespace {

// The header's JSON: an object, with no key twice in any object of it.
nlohmann::json parseHeader(const std::string& p, const std::string& header) {
    auto fail = [&](const std::string& what) { throw FormatError(p + ": " + what); };
    auto failT = [&](const std::string& name, const std::string& what) {
        throw FormatError(p + ": tensor '" + name + "': " + what);
    };
    nlohmann::json j;
    try {
        checkJsonNesting(header, "header");
        j = nlohmann::json::parse(header);
    } catch (const FormatError& e) {
        fail(e.what());
    } catch (const nlohmann::json::exception& e) { // a syntax error, or a number out of range (1e400)
        fail(std::string("header is not valid JSON: ") + e.what());
    }
    if (!j.is_object())
        fail("header is not a JSON object");
    const auto dup = findDuplicateKey(header);
    if (dup.depth == 1)
        failT(dup.key, "appears twice in the header");
    if (!dup.key.empty())
        fail("the key \"" + dup.key + "\" appears twice in one object");
    return j;
}

// The __metadata__ entry into metadata: an object of strings.
void readMetadata(const std::string& p, const nlohmann::json& e,
                  std::map<std::string, std::string>& metadata) {
    auto fail = [&](const std::string& what) { throw FormatError(p + ": " + what); };
    if (!e.is_object())
        fail("__metadata__ is not an object");
    for (const auto& [k, v] : e.items()) {
        if (!v.is_string())
            fail("__metadata__ value of '" + k + "' is not a string");
        metadata[k] = v.get<std::string>();
    }
}

// A tensor's data_offsets into t: in order, within the data section of dataSize bytes, and holding exactly
// numel elements of t.dtype (spelled dt in the header).
void readDataOffsets(const std::string& p, const nlohmann::json& off, uint64_t dataSize, uint64_t numel,
                     const std::string& dt, TensorInfo& t) {
    auto failT = [&](const std::string& name, const std::string& what) {
        throw FormatError(p + ": tensor '" + name + "': " + what);
    };
    if (!off.is_array() || off.size() != 2 || !off[0].is_number_integer() || !off[1].is_number_integer() ||
        off[0].get<int64_t>() < 0 || off[1].get<int64_t>() < 0)
        failT(t.name, "data_offsets must be two non-negative integers, got " + off.dump());
    t.begin = off[0].get<uint64_t>();
    t.end = off[1].get<uint64_t>();
    if (t.begin > t.end)
        failT(t.name, "data_offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) +
                          "] begin after they end");
    if (t.end > dataSize)
        failT(t.name, "data_offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) +
                          "] are out of range: the data section is " + std::to_string(dataSize) + " bytes");
    const uint64_t need = numel * dtypeSize(t.dtype);
    if (t.end - t.begin != need)
        failT(t.name, "data_offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) + "] hold " +
                          std::to_string(t.end - t.begin) + " bytes but " + dt + " shape " +
                          shapeText(t.shape) + " needs " + std::to_string(need));
}

// One tensor's header entry: a dtype read here, a shape whose byte count fits in 64 bits, and data_offsets
// within the data section of dataSize bytes.
TensorInfo readTensorInfo(const std::string& p, const std::string& name, const nlohmann::json& e,
                          uint64_t dataSize) {
    auto failT = [&](const std::string& tensor, const std::string& what) {
        throw FormatError(p + ": tensor '" + tensor + "': " + what);
    };
    if (!e.is_object())
        failT(name, "header entry is not an object");
    for (const char* key : {"dtype", "shape", "data_offsets"})
        if (!e.contains(key))
            failT(name, std::string("header entry lacks '") + key + "'");
    TensorInfo t;
    t.name = name;
    if (!e["dtype"].is_string())
        failT(name, "dtype is not a string");
    const auto dt = e["dtype"].get<std::string>();
    if (dt == "F32")
        t.dtype = DType::F32;
    else if (dt == "F16")
        t.dtype = DType::F16;
    else if (dt == "BF16")
        t.dtype = DType::BF16;
    else if (dt == "U8")
        t.dtype = DType::U8;
    else if (dt == "BOOL")
        t.dtype = DType::Bool;
    else if (dt == "I64")
        t.dtype = DType::I64;
    else
        failT(name, "unsupported dtype " + dt + " (F32, F16, BF16, U8, BOOL and I64 are read)");
    if (!e["shape"].is_array())
        failT(name, "shape is not an array");
    uint64_t numel = 1;
    for (const auto& d : e["shape"]) {
        if (!d.is_number_integer() || d.get<int64_t>() < 0)
            failT(name, "shape " + e["shape"].dump() + " has a dimension that is not a non-negative integer");
        const auto dim = d.get<uint64_t>();
        if (dim != 0 && numel > (std::numeric_limits<uint64_t>::max() / 8) / dim)
            failT(name, "shape " + e["shape"].dump() + " overflows");
        numel *= dim;
        t.shape.push_back(static_cast<int64_t>(dim));
    }
    readDataOffsets(p, e["data_offsets"], dataSize, numel, dt, t);
    return t;
}

// Ranges may not overlap, and (as the format demands) together they must cover the data section exactly.
void checkCoverage(const std::string& p, const std::vector<TensorInfo>& tensors, uint64_t dataSize) {
    auto fail = [&](const std::string& what) { throw FormatError(p + ": " + what); };
    auto failT = [&](const std::string& name, const std::string& what) {
        throw FormatError(p + ": tensor '" + name + "': " + what);
    };
    std::vector<const TensorInfo*> byOffset;
    for (const auto& t : tensors)
        byOffset.push_back(&t);
    std::sort(byOffset.begin(), byOffset.end(),
              [](auto* a, auto* b) { return a->begin != b->begin ? a->begin < b->begin : a->end < b->end; });
    uint64_t covered = 0;
    const TensorInfo* prev = nullptr;
    for (const auto* t : byOffset) {
        if (t->begin == t->end)
            continue; // empty tensors take no room
        if (t->begin < covered)
            failT(t->name, "its bytes overlap those of tensor '" + prev->name + "'");
        if (t->begin > covered)
            fail("data bytes " + std::to_string(covered) + ".." + std::to_string(t->begin) +
                 " belong to no tensor (a hole before '" + t->name + "')");
        covered = t->end;
        prev = t;
    }
    if (covered != dataSize)
        fail("data section has " + std::to_string(dataSize - covered) +
             " trailing bytes that belong to no tensor");
}

} // namespace

SafetensorsFile SafetensorsFile::validated(SafetensorsFile f) {
    const auto& p = f.path_;
    auto fail = [&](const std::string& what) { throw FormatError(p + ": " + what); };

    const uint64_t size = f.size_;
    if (size < 8)
        fail("too short to hold a header length (" + std::to_string(size) + " bytes)");
    uint64_t n = 0;
    f.readAt(0, 8, reinterpret_cast<char*>(&n));
    if (n > kMaxHeader)
        fail("header length " + std::to_string(n) + " is absurd (over 100 MB)");
    if (n > size - 8)
        fail("header length " + std::to_string(n) + " runs past the end of the file (size " +
             std::to_string(size) + ")");
    std::string header(static_cast<std::size_t>(n), '\0');
    f.readAt(8, header.size(), header.data());
    f.dataStart_ = 8 + n;
    const uint64_t dataSize = size - 8 - n;

    const auto j = parseHeader(p, header);
    for (const auto& [name, e] : j.items()) {
        if (name == "__metadata__") {
            readMetadata(p, e, f.metadata_);
            continue;
        }
        f.tensors_.push_back(readTensorInfo(p, name, e, dataSize));
    }
    checkCoverage(p, f.tensors_, dataSize);
    std::sort(f.tensors_.begin(), f.tensors_.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    return f;
}

const TensorInfo* findTensor(const std::vector<TensorInfo>& sorted, const std::string& name) {
    const auto it = std::lower_bound(sorted.begin(), sorted.end(), name,
                                     [](const TensorInfo& t, const std::string& n) { return t.name < n; });
    return it != sorted.end() && it->name == name ? &*it : nullptr;
}

const TensorInfo* SafetensorsFile::find(const std::string& name) const {
    return findTensor(tensors_, name);
}

void SafetensorsFile::copyFloat32(const TensorInfo& t, float* out) const {
    const auto n = static_cast<std::size_t>(t.numel());
    // An empty tensor's out may be null (toFloat32's empty vector), and memcpy from or to null is undefined
    // even for 0 bytes.
    if (n == 0)
        return;
    const uint64_t at = dataStart_ + t.begin;
    if (t.dtype == DType::F32) { // straight into place: no second copy of the tensor
        readAt(at, n * 4, reinterpret_cast<char*>(out));
        checkFinite(t, out, n);
        return;
    }
    std::vector<char> raw(static_cast<std::size_t>(t.end - t.begin));
    readAt(at, raw.size(), raw.data());
    const char* src = raw.data();
    if (t.dtype == DType::U8 || t.dtype == DType::Bool) {
        for (std::size_t i = 0; i < n; ++i) {
            const auto v = static_cast<unsigned char>(src[i]);
            out[i] = t.dtype == DType::Bool ? (v ? 1.0f : 0.0f) : static_cast<float>(v);
        }
        return;
    }
    if (t.dtype == DType::I64) {
        for (std::size_t i = 0; i < n; ++i) {
            int64_t v;
            std::memcpy(&v, src + 8 * i, 8);
            out[i] = static_cast<float>(v);
        }
        return;
    }
    for (std::size_t i = 0; i < n; ++i) {
        uint16_t v;
        std::memcpy(&v, src + 2 * i, 2);
        out[i] = t.dtype == DType::F16 ? halfToFloat(v) : bf16ToFloat(v);
    }
    checkFinite(t, out, n);
}

void SafetensorsFile::checkFinite(const TensorInfo& t, const float* out, std::size_t n) const {
    // A NaN or infinite weight loads fine and then turns every output it touches into NaN, which decodes as
    // <pad> forever with nothing to say why; refuse it here, where the tensor still has a name.
    for (std::size_t i = 0; i < n; ++i)
        if (!std::isfinite(out[i]))
            throw FormatError(path_ + ": tensor '" + t.name + "' holds " +
                              (std::isnan(out[i]) ? "NaN" : "an infinity") + " (element " +
                              std::to_string(i) + "); weights must be finite numbers");
}

std::vector<float> SafetensorsFile::toFloat32(const TensorInfo& t) const {
    std::vector<float> v(static_cast<std::size_t>(t.numel()));
    copyFloat32(t, v.data());
    return v;
}

void writeSafetensors(const std::string& path, const std::vector<TensorToWrite>& tensors,
                      const std::map<std::string, std::string>& metadata) {
    auto numel = [](const TensorToWrite& t) {
        uint64_t n = 1;
        for (auto d : t.shape)
            n *= static_cast<uint64_t>(d);
        return n;
    };
    std::map<std::string, const TensorToWrite*> sorted;
    for (const auto& t : tensors) {
        for (auto d : t.shape)
            if (d < 0)
                throw std::invalid_argument("tensor '" + t.name + "' has a negative dimension");
        if (t.dtype != DType::F32 && t.dtype != DType::F16)
            throw std::invalid_argument("tensor '" + t.name + "': " + dtypeName(t.dtype) +
                                        " is read, not written");
        if (!sorted.emplace(t.name, &t).second)
            throw std::invalid_argument("tensor '" + t.name + "' given twice");
        // Checked before anything is written: a weight that becomes inf in a shipped file poisons every
        // output it touches, long after the conversion that caused it.
        if (t.dtype == DType::F16)
            for (uint64_t i = 0, n = numel(t); i < n; ++i)
                if (std::isfinite(t.data[i]) && std::fabs(t.data[i]) > kHalfMax) {
                    char value[32];
                    std::snprintf(value, sizeof value, "%g", static_cast<double>(t.data[i]));
                    throw InputError(path + ": tensor '" + t.name + "' holds " + value + " (element " +
                                     std::to_string(i) +
                                     "), beyond F16's range of ±65504; keep this model in F32");
                }
    }
    nlohmann::json header = nlohmann::json::object();
    uint64_t offset = 0;
    for (const auto& [name, t] : sorted) {
        const uint64_t bytes = numel(*t) * dtypeSize(t->dtype);
        header[name] = {
            {"dtype", dtypeName(t->dtype)}, {"shape", t->shape}, {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
    }
    if (!metadata.empty())
        header["__metadata__"] = metadata;
    std::string h = header.dump();
    h.append((8 - h.size() % 8) % 8, ' '); // aligned data, as Hugging Face writes it

    const uint64_t n = h.size();
    std::string bytes(reinterpret_cast<const char*>(&n), 8);
    bytes.reserve(8 + h.size() + offset);
    bytes += h;
    for (const auto& [name, t] : sorted) {
        const auto count = numel(*t);
        if (t->dtype == DType::F32) {
            bytes.append(reinterpret_cast<const char*>(t->data), count * 4);
            continue;
        }
        for (uint64_t i = 0; i < count; ++i) {
            const uint16_t v = floatToHalf(t->data[i]);
            bytes.append(reinterpret_cast<const char*>(&v), 2);
        }
    }
    writeFileAtomically(path, bytes);
}

} // namespace core
