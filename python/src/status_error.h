// How the binding reports an absl::Status to Python: as the exception class
// of minitf.errors that TensorFlow's Python API raises for the code
// (InvalidArgumentError, ...), carrying the code, the message and the node.
#ifndef MINITF_PYTHON_SRC_STATUS_ERROR_H_
#define MINITF_PYTHON_SRC_STATUS_ERROR_H_

#include <stdexcept>
#include <string>

#include "absl/status/status.h"
#include "pybind11/pybind11.h"

namespace minitf::python {

// Thrown by the binding's functions; translated by RegisterStatusError.
class StatusError : public std::runtime_error {
 public:
  explicit StatusError(const absl::Status& status)
      : std::runtime_error(std::string(status.message())), code_(status.code()) {}
  absl::StatusCode code() const { return code_; }

 private:
  absl::StatusCode code_;
};

// Throws StatusError for a status that is not OK.
inline void ThrowIfError(const absl::Status& status) {
  if (!status.ok()) throw StatusError(status);
}

// Makes StatusError raise minitf.errors.<Class>(code, message).
void RegisterStatusError(pybind11::module_& module);

}  // namespace minitf::python

#endif  // MINITF_PYTHON_SRC_STATUS_ERROR_H_
