// CallFrameInterface: how a step's feeds reach its _Arg nodes and how its
// _Retval nodes hand back the fetches. FunctionCallFrame is the plain
// implementation DirectSession uses.
#ifndef MINITF_RUNTIME_CALL_FRAME_H_
#define MINITF_RUNTIME_CALL_FRAME_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "platform/mutex.h"
#include "runtime/tensor.h"

namespace minitf {

class CallFrameInterface {
 public:
  virtual ~CallFrameInterface() = default;
  virtual size_t num_args() const = 0;
  virtual size_t num_retvals() const = 0;
  virtual absl::Status GetArg(int index, Tensor* value) const = 0;
  virtual absl::Status SetRetval(int index, const Tensor& value) = 0;
};

// Args set before the step, retvals read after it. Thread-safe.
class FunctionCallFrame final : public CallFrameInterface {
 public:
  FunctionCallFrame(std::vector<Tensor> args, size_t num_retvals);

  size_t num_args() const override { return args_.size(); }
  size_t num_retvals() const override { return num_retvals_; }
  absl::Status GetArg(int index, Tensor* value) const override;
  // An error when the index is out of range or the retval is set twice.
  absl::Status SetRetval(int index, const Tensor& value) override;
  // Moves the retvals out. One never set (its _Retval's input was dead: an
  // untaken branch of a Switch) is InvalidArgument, in TensorFlow's words
  // "Retval[i] does not have value", naming `names[i]` too when given.
  absl::Status ConsumeRetvals(std::vector<Tensor>* retvals,
                              const std::vector<std::string>& names = {});

 private:
  const std::vector<Tensor> args_;
  const size_t num_retvals_;
  Mutex mu_;
  std::vector<std::optional<Tensor>> retvals_ ABSL_GUARDED_BY(mu_);
};

}  // namespace minitf

#endif  // MINITF_RUNTIME_CALL_FRAME_H_
