// OP_REQUIRES / OP_REQUIRES_OK: report an error from a kernel and return.
//
//   OP_REQUIRES(ctx, a.dims() == 2, absl::InvalidArgumentError("a must be a matrix"));
//   OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
//
// In an AsyncOpKernel use the _ASYNC forms, which also call `done`.
#ifndef MINITF_RUNTIME_OP_REQUIRES_H_
#define MINITF_RUNTIME_OP_REQUIRES_H_

#define OP_REQUIRES(CTX, EXP, STATUS) \
  do {                                \
    if (!(EXP)) {                     \
      (CTX)->CtxFailure((STATUS));    \
      return;                         \
    }                                 \
  } while (0)

#define OP_REQUIRES_OK(CTX, ...)                      \
  do {                                                \
    ::absl::Status _minitf_op_status = (__VA_ARGS__); \
    if (!_minitf_op_status.ok()) {                    \
      (CTX)->CtxFailure(_minitf_op_status);           \
      return;                                         \
    }                                                 \
  } while (0)

#define OP_REQUIRES_ASYNC(CTX, EXP, STATUS, CALLBACK) \
  do {                                                \
    if (!(EXP)) {                                     \
      (CTX)->CtxFailure((STATUS));                    \
      (CALLBACK)();                                   \
      return;                                         \
    }                                                 \
  } while (0)

#define OP_REQUIRES_OK_ASYNC(CTX, STATUS, CALLBACK)  \
  do {                                               \
    ::absl::Status _minitf_op_status = (STATUS);     \
    if (!_minitf_op_status.ok()) {                   \
      (CTX)->CtxFailure(_minitf_op_status);          \
      (CALLBACK)();                                  \
      return;                                        \
    }                                                \
  } while (0)

#endif  // MINITF_RUNTIME_OP_REQUIRES_H_
