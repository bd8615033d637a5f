// Tensor: a typed, shaped view of a reference-counted buffer that came from an
// Allocator. Copying a Tensor is cheap and shares the buffer; the buffer goes
// back to its allocator when the last Tensor that refers to it is destroyed.
//
//   Tensor t(DT_FLOAT, TensorShape({2, 3}));       // host memory, cpu_allocator()
//   t.matrix<float>()(1, 2) = 4.0f;                // Eigen TensorMap view
//   Tensor s = Tensor::Scalar<float>(3.0f);
//   Tensor v = Tensor::FromVector<int32_t>({1, 2, 3, 4}, TensorShape({2, 2}));
//
// Thread safety: distinct Tensor objects may be used from different threads
// even when they share a buffer; writing the buffer's elements while another
// thread reads them is the caller's race, as in TensorFlow.
#ifndef MINITF_RUNTIME_TENSOR_H_
#define MINITF_RUNTIME_TENSOR_H_

#include <atomic>
#include <cstring>
#include <initializer_list>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "allocator/allocator.h"
#include "platform/logging.h"
#include "runtime/tensor_shape.h"
#include "runtime/tensor_types.h"
#include "runtime/types.h"
#include "stream/device_memory_protection.h"

namespace minitf {

// A block of memory owned by one Allocator, shared by the Tensors that use it.
// Created with refcount 1; freed when Unref drops it to 0.
class TensorBuffer {
 public:
  // Returns nullptr when the allocator cannot provide `num_bytes`.
  static TensorBuffer* Allocate(Allocator* allocator, size_t num_bytes,
                                const AllocationAttributes& attrs);

  TensorBuffer(const TensorBuffer&) = delete;
  TensorBuffer& operator=(const TensorBuffer&) = delete;

  void* data() const { return data_; }
  size_t size() const { return size_; }
  Allocator* allocator() const { return allocator_; }

  void Ref() { refcount_.fetch_add(1, std::memory_order_relaxed); }
  // Frees the buffer (and this object) when the count reaches zero.
  void Unref();
  bool RefCountIsOne() const { return refcount_.load(std::memory_order_acquire) == 1; }

  // For DT_RESOURCE: constructs `n` default ResourceHandles in the buffer
  // (which must hold them and be host memory); the buffer destroys them
  // before it frees its memory. Called once, by Tensor::Allocate.
  void ConstructResourceHandles(int64_t n);

 private:
  TensorBuffer(Allocator* allocator, void* data, size_t size)
      : allocator_(allocator), data_(data), size_(size) {}
  ~TensorBuffer();

  Allocator* const allocator_;  // Not owned; outlives the buffer.
  void* const data_;
  const size_t size_;
  int64_t num_resource_handles_ = 0;  // Constructed in data_ (DT_RESOURCE).
  std::atomic<int> refcount_{1};
};

class Tensor {
 public:
  // An uninitialized tensor of DT_INVALID.
  Tensor() = default;
  // Allocates from cpu_allocator(). When the memory cannot be had the error
  // is logged and the tensor is left without a buffer (IsInitialized() is
  // false), as in TensorFlow: for small tensors of fixed size, and tests.
  // Code on the path of a step, or sizing a tensor from user input, uses
  // Allocate() and returns its status.
  Tensor(DataType dtype, const TensorShape& shape);
  // Allocates from `allocator`; on failure as above.
  Tensor(Allocator* allocator, DataType dtype, const TensorShape& shape);
  // Allocates from `allocator`. ResourceExhausted naming the shape, type,
  // size and allocator when the memory cannot be had (or the byte count
  // overflows); InvalidArgument for DT_INVALID.
  static absl::StatusOr<Tensor> Allocate(Allocator* allocator, DataType dtype,
                                         const TensorShape& shape,
                                         const AllocationAttributes& attrs = {});

  // Small host tensors holding the given values (a failed allocation here
  // is a broken invariant: it aborts).
  template <typename T>
  static Tensor Scalar(T value) {
    Tensor t(DataTypeToEnum<T>::value, TensorShape());
    MINITF_CHECK(t.IsInitialized());
    t.scalar<T>()() = value;
    return t;
  }
  // REQUIRES: values.size() == shape.num_elements().
  template <typename T>
  static Tensor FromVector(absl::Span<const T> values, const TensorShape& shape) {
    MINITF_CHECK(static_cast<int64_t>(values.size()) == shape.num_elements());
    Tensor t(DataTypeToEnum<T>::value, shape);
    MINITF_CHECK(t.IsInitialized());
    std::copy(values.begin(), values.end(), t.flat<T>().data());
    return t;
  }
  template <typename T>
  static Tensor FromVector(std::initializer_list<T> values, const TensorShape& shape) {
    return FromVector<T>(absl::Span<const T>(values.begin(), values.size()), shape);
  }
  // A vector (rank 1) holding `values`.
  template <typename T>
  static Tensor FromVector(std::initializer_list<T> values) {
    return FromVector<T>(values, TensorShape({static_cast<int64_t>(values.size())}));
  }

  Tensor(const Tensor& other);
  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(const Tensor& other);
  Tensor& operator=(Tensor&& other) noexcept;
  ~Tensor();

  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int dims() const { return shape_.dims(); }
  int64_t dim_size(int d) const { return shape_.dim_size(d); }
  int64_t NumElements() const { return shape_.num_elements(); }
  // NumElements() * the type's size: exact for every tensor with a buffer
  // (Allocate refuses a byte count that does not fit in size_t).
  size_t TotalBytes() const { return NumElements() * DataTypeSize(dtype_); }
  // Bytes the buffer really holds (0 without a buffer).
  size_t AllocatedBytes() const { return buf_ == nullptr ? 0 : buf_->size(); }

  // True when the tensor has a dtype and memory for all its elements.
  bool IsInitialized() const {
    return dtype_ != DT_INVALID && (buf_ != nullptr || NumElements() == 0);
  }
  bool SharesBufferWith(const Tensor& other) const {
    return buf_ != nullptr && buf_ == other.buf_;
  }
  // True when this is the only Tensor using its buffer, so a kernel may reuse
  // the memory for its output.
  bool RefCountIsOne() const { return buf_ != nullptr && buf_->RefCountIsOne(); }
  // The allocator of the buffer, or nullptr.
  Allocator* allocator() const { return buf_ == nullptr ? nullptr : buf_->allocator(); }

  // Makes this tensor share `other`'s buffer with a new shape. Returns false
  // (and changes nothing) when the element counts differ.
  bool CopyFrom(const Tensor& other, const TensorShape& shape);
  // A tensor with its own copy of the elements, from cpu_allocator(); left
  // without a buffer (logged) when that memory cannot be had.
  Tensor DeepCopy() const;

  // The elements' address as the calling thread may use it: on a SimGPU
  // device, the real address on the device's own threads and a faulting
  // tagged one elsewhere (device_memory_protection.h); else the buffer's.
  void* raw_data() const {
    return buf_ == nullptr ? nullptr : se::DeviceAddressForThisThread(buf_->data());
  }

  // REQUIRES: the type is T, and the tensor has its buffer (or no elements).
  template <typename T>
  T* data() const {
    CheckType(DataTypeToEnum<T>::value);
    CheckHasBuffer();
    return static_cast<T*>(raw_data());
  }

  template <typename T>
  typename TTypes<T>::Flat flat() {
    return typename TTypes<T>::Flat(data<T>(), NumElements());
  }
  template <typename T>
  typename TTypes<T>::ConstFlat flat() const {
    return typename TTypes<T>::ConstFlat(data<T>(), NumElements());
  }
  template <typename T>
  typename TTypes<T>::Vec vec() {
    CheckRank(1);
    return flat<T>();
  }
  template <typename T>
  typename TTypes<T>::ConstVec vec() const {
    CheckRank(1);
    return flat<T>();
  }
  template <typename T>
  typename TTypes<T>::Matrix matrix() {
    return tensor<T, 2>();
  }
  template <typename T>
  typename TTypes<T>::ConstMatrix matrix() const {
    return tensor<T, 2>();
  }
  template <typename T>
  typename TTypes<T>::Scalar scalar() {
    MINITF_CHECK(NumElements() == 1);
    return typename TTypes<T>::Scalar(data<T>());
  }
  template <typename T>
  typename TTypes<T>::ConstScalar scalar() const {
    MINITF_CHECK(NumElements() == 1);
    return typename TTypes<T>::ConstScalar(data<T>());
  }
  // REQUIRES: dims() == N.
  template <typename T, int N>
  typename TTypes<T, N>::Tensor tensor() {
    CheckRank(N);
    return typename TTypes<T, N>::Tensor(data<T>(), EigenDims<N>(shape_.dim_sizes()));
  }
  template <typename T, int N>
  typename TTypes<T, N>::ConstTensor tensor() const {
    CheckRank(N);
    return typename TTypes<T, N>::ConstTensor(data<T>(), EigenDims<N>(shape_.dim_sizes()));
  }
  // The elements seen with other dimensions. REQUIRES: same element count.
  template <typename T, int N>
  typename TTypes<T, N>::Tensor shaped(absl::Span<const int64_t> dims) {
    MINITF_CHECK(static_cast<int>(dims.size()) == N && ProductOf(dims) == NumElements());
    return typename TTypes<T, N>::Tensor(data<T>(), EigenDims<N>(dims));
  }
  template <typename T, int N>
  typename TTypes<T, N>::ConstTensor shaped(absl::Span<const int64_t> dims) const {
    MINITF_CHECK(static_cast<int>(dims.size()) == N && ProductOf(dims) == NumElements());
    return typename TTypes<T, N>::ConstTensor(data<T>(), EigenDims<N>(dims));
  }

  // "Tensor<type: float shape: [2,2] values: [1 2][3 4]>", at most
  // `max_entries` values.
  std::string DebugString(int max_entries = 12) const;
  // The values alone: "[1 2 3]" or "2.5".
  std::string SummarizeValue(int max_entries = 12) const;

 private:
  void CheckType(DataType expected) const;
  void CheckHasBuffer() const {
    if (buf_ == nullptr && NumElements() > 0) BufferMissing();
  }
  [[noreturn]] void BufferMissing() const;
  void CheckRank(int expected) const { MINITF_CHECK(dims() == expected); }
  static int64_t ProductOf(absl::Span<const int64_t> dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
  template <int N>
  static Eigen::DSizes<Eigen::DenseIndex, N> EigenDims(absl::Span<const int64_t> dims) {
    Eigen::DSizes<Eigen::DenseIndex, N> out;
    for (int i = 0; i < N; ++i) out[i] = dims[i];
    return out;
  }

  DataType dtype_ = DT_INVALID;
  TensorShape shape_;
  TensorBuffer* buf_ = nullptr;  // Holds one reference when non-null.
};

}  // namespace minitf

#endif  // MINITF_RUNTIME_TENSOR_H_
