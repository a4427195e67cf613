#pragma once
// Safetensors (the Hugging Face weight format): 8-byte little-endian header length N, N bytes of JSON
// {name: {dtype, shape, data_offsets}}, then the raw little-endian data. Read strictly: every length, offset,
// dtype and shape is checked before any byte of data is used.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace core {

class FileReader;

/// U8 and BOOL are read (as 0..255 and 0/1) because Hugging Face checkpoints carry attention-mask buffers in
/// them; they are never written.
// I64 is read (transformers saved position_ids buffers so before 4.31), never written.
enum class DType { F32, F16, BF16, U8, Bool, I64 };
std::size_t dtypeSize(DType);
const char* dtypeName(DType);

/// The largest finite F16 value; writing anything larger in magnitude as F16 is refused.
constexpr float kHalfMax = 65504.0f;

struct TensorInfo {
    std::string name;
    DType dtype = DType::F32;
    std::vector<int64_t> shape;
    uint64_t begin = 0; ///< byte offsets into the data section (after the header)
    uint64_t end = 0;
    int64_t numel() const;
};

/// The tensor named `name` in a list sorted by name; nullptr when absent.
const TensorInfo* findTensor(const std::vector<TensorInfo>& sorted, const std::string& name);

/// A safetensors file, validated: its header is read at once, each tensor's bytes when they are copied out
/// (the file stays open; copies share it).
class SafetensorsFile {
public:
    /// Throws IoError when the file can't be read, FormatError naming the file (and tensor) when it is
    /// malformed.
    static SafetensorsFile open(const std::string& path);
    /// The same checks on bytes in memory; displayName stands for the path in messages.
    static SafetensorsFile fromBytes(std::string bytes, std::string displayName);

    const std::string& path() const { return path_; }
    const std::vector<TensorInfo>& tensors() const { return tensors_; } ///< sorted by name
    const TensorInfo* find(const std::string& name) const;              ///< nullptr when absent
    std::vector<float> toFloat32(const TensorInfo& t) const;
    /// out holds t.numel() floats. Throws FormatError naming the tensor if a value is NaN or infinite.
    void copyFloat32(const TensorInfo& t, float* out) const;
    const std::map<std::string, std::string>& metadata() const { return metadata_; }

private:
    /// Checks the header and lists the tensors; fromBytes and open share it.
    static SafetensorsFile validated(SafetensorsFile f);
    /// n bytes at offset of the file (or of the bytes given).
    void readAt(uint64_t offset, std::size_t n, char* dst) const;
    /// Throws FormatError naming the tensor when a value is NaN or infinite.
    void checkFinite(const TensorInfo& t, const float* out, std::size_t n) const;

    std::string path_;
    std::shared_ptr<const FileReader> file_;    // the file, read at offsets
    std::shared_ptr<const std::string> memory_; // or the bytes given
    uint64_t size_ = 0;
    std::size_t dataStart_ = 0;
    std::vector<TensorInfo> tensors_;
    std::map<std::string, std::string> metadata_;
};

struct TensorToWrite {
    std::string name;
    std::vector<int64_t> shape;
    const float* data = nullptr; ///< numel(shape) floats
    DType dtype = DType::F32;    ///< stored as is (F32) or rounded to nearest even (F16); no other is written
};

/// Writes atomically (see writeFileAtomically). Throws IoError naming the path and the reason; no temporary
/// file is left behind. A finite value beyond ±kHalfMax in a tensor to be stored as F16 is an InputError
/// naming the path and the tensor (before anything is written): it would become inf in the file.
void writeSafetensors(const std::string& path, const std::vector<TensorToWrite>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

} // namespace core
