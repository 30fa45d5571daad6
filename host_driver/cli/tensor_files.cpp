#include "tensor_files.h"

#include <stdexcept>

#include "npy/npy.h"

namespace tpu::cli {
namespace {

template <typename T>
golden::Tensor<T> Load(const std::string& option, const std::string& path) {
  try {
    return npy::Read<T>(path);
  } catch (const npy::Error& e) {
    throw std::invalid_argument(option + ": " + e.what());
  }
}

}  // namespace

golden::Tensor<int8_t> LoadInt8Matrix(const std::string& option, const std::string& path,
                                      const std::string& layout) {
  golden::Tensor<int8_t> t = Load<int8_t>(option, path);
  const std::string where = option + ": " + path + ": shape " + npy::ShapeRepr(t.shape);
  if (t.rank() != 2) {
    throw std::invalid_argument(where + ": expected an int8 matrix " + layout + ", rank 2");
  }
  if (t.NumElements() == 0) {
    throw std::invalid_argument(where + " is empty: expected " + layout +
                                " with both dimensions >= 1");
  }
  return t;
}

golden::Tensor<int8_t> LoadInt8Tensor(const std::string& option, const std::string& path,
                                      std::size_t rank, const std::string& layout) {
  golden::Tensor<int8_t> t = Load<int8_t>(option, path);
  const std::string where = option + ": " + path + ": shape " + npy::ShapeRepr(t.shape);
  if (rank == 0 ? t.rank() == 0 : t.rank() != rank) {
    throw std::invalid_argument(where + ": expected an int8 array " + layout + ", " +
                                (rank == 0 ? std::string("rank >= 1")
                                           : "rank " + std::to_string(rank)));
  }
  if (t.NumElements() == 0) {
    throw std::invalid_argument(where + " is empty: expected " + layout +
                                " with every dimension >= 1");
  }
  return t;
}

std::vector<int8_t> LoadInt8Vector(const std::string& option, const std::string& path, int64_t n,
                                   const std::string& meaning) {
  golden::Tensor<int8_t> t = Load<int8_t>(option, path);
  if (t.rank() != 1 || t.shape[0] != n) {
    throw std::invalid_argument(option + ": " + path + ": shape " + npy::ShapeRepr(t.shape) +
                                ": expected " + npy::ShapeRepr({n}) + ": " + meaning);
  }
  return std::move(t.data);
}

std::vector<int32_t> LoadInt32Vector(const std::string& option, const std::string& path, int64_t n,
                                     const std::string& meaning) {
  golden::Tensor<int32_t> t = Load<int32_t>(option, path);
  if (t.rank() != 1 || t.shape[0] != n) {
    throw std::invalid_argument(option + ": " + path + ": shape " + npy::ShapeRepr(t.shape) +
                                ": expected " + npy::ShapeRepr({n}) + ": " + meaning);
  }
  return std::move(t.data);
}

template <typename T>
void SaveTensor(const std::string& option, const std::string& path,
                const golden::Tensor<T>& tensor) {
  try {
    npy::Write(path, tensor);
  } catch (const npy::Error& e) {
    throw std::invalid_argument(option + ": " + e.what());
  }
}

template void SaveTensor<int8_t>(const std::string&, const std::string&,
                                 const golden::Tensor<int8_t>&);
template void SaveTensor<int32_t>(const std::string&, const std::string&,
                                  const golden::Tensor<int32_t>&);
template void SaveTensor<float>(const std::string&, const std::string&,
                                const golden::Tensor<float>&);

}  // namespace tpu::cli
