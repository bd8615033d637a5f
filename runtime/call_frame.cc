#include "runtime/call_frame.h"

#include "absl/strings/str_cat.h"

namespace minitf {

FunctionCallFrame::FunctionCallFrame(std::vector<Tensor> args, size_t num_retvals)
    : args_(std::move(args)), num_retvals_(num_retvals), retvals_(num_retvals) {}

absl::Status FunctionCallFrame::GetArg(int index, Tensor* value) const {
  if (index < 0 || static_cast<size_t>(index) >= args_.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("arg index ", index, " out of range [0, ", args_.size(), ")"));
  }
  *value = args_[index];
  return absl::OkStatus();
}

absl::Status FunctionCallFrame::SetRetval(int index, const Tensor& value) {
  if (index < 0 || static_cast<size_t>(index) >= num_retvals_) {
    return absl::InvalidArgumentError(
        absl::StrCat("retval index ", index, " out of range [0, ", num_retvals_, ")"));
  }
  MutexLock lock(&mu_);
  if (retvals_[index].has_value()) {
    return absl::InternalError(absl::StrCat("retval ", index, " set twice"));
  }
  retvals_[index] = value;
  return absl::OkStatus();
}

absl::Status FunctionCallFrame::ConsumeRetvals(std::vector<Tensor>* retvals,
                                               const std::vector<std::string>& names) {
  MutexLock lock(&mu_);
  retvals->clear();
  for (size_t i = 0; i < retvals_.size(); ++i) {
    if (!retvals_[i].has_value()) {
      const std::string which =
          i < names.size() ? absl::StrCat(" (fetch '", names[i], "')") : std::string();
      return absl::InvalidArgumentError(absl::StrCat(
          "Retval[", i, "] does not have value", which,
          ": the tensor is dead, as the untaken branch of a Switch is, so it has no value"));
    }
    retvals->push_back(*std::move(retvals_[i]));
    retvals_[i].reset();
  }
  return absl::OkStatus();
}

}  // namespace minitf
