// MINITF_RETURN_IF_ERROR and MINITF_ASSIGN_OR_RETURN: early return on error.
//
//   MINITF_RETURN_IF_ERROR(graph.AddEdge(a, 0, b, 1));
//   MINITF_ASSIGN_OR_RETURN(Tensor t, ParseTensor(text));
//
// (The Debian Abseil, 20220623, does not ship its own versions of these.)
#ifndef MINITF_PLATFORM_STATUS_MACROS_H_
#define MINITF_PLATFORM_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define MINITF_RETURN_IF_ERROR(expr)                  \
  do {                                                \
    ::absl::Status _minitf_status = (expr);           \
    if (!_minitf_status.ok()) return _minitf_status;  \
  } while (0)

#define MINITF_STATUS_CONCAT_INNER_(a, b) a##b
#define MINITF_STATUS_CONCAT_(a, b) MINITF_STATUS_CONCAT_INNER_(a, b)

#define MINITF_ASSIGN_OR_RETURN(lhs, expr) \
  MINITF_ASSIGN_OR_RETURN_IMPL_(MINITF_STATUS_CONCAT_(_minitf_statusor_, __LINE__), lhs, expr)

#define MINITF_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                                  \
  if (!statusor.ok()) return statusor.status();            \
  lhs = std::move(statusor).value()

#endif  // MINITF_PLATFORM_STATUS_MACROS_H_
