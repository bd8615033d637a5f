// Session: the client's handle on a graph and the devices that run it.
//
//   MINITF_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(SessionOptions()));
//   MINITF_RETURN_IF_ERROR(session->Create(graph_def));
//   std::vector<Tensor> outputs;
//   MINITF_RETURN_IF_ERROR(session->Run({{"x", x}}, {"y:0"}, {}, &outputs));
//
// Feeds name tensors ("node" or "node:port") and replace their values for
// this Run; fetches name the tensors to return, in order; targets name nodes
// to run for their effect only. Run may be called from many threads at once.
//
// A callable binds a signature once, for calls that do no name parsing:
//
//   Session::CallableHandle handle;
//   MINITF_RETURN_IF_ERROR(session->MakeCallable({.feed = {"x"}, .fetch = {"y:0"}}, &handle));
//   MINITF_RETURN_IF_ERROR(session->RunCallable(handle, {x}, &outputs, nullptr));
//   MINITF_RETURN_IF_ERROR(session->ReleaseCallable(handle));
#ifndef MINITF_SESSION_SESSION_H_
#define MINITF_SESSION_SESSION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/graph_def.h"
#include "runtime/tensor.h"
#include "session/session_options.h"

namespace minitf {

class Device;

class Session {
 public:
  virtual ~Session() = default;

  // Sets the session's graph, validating it. Only once.
  virtual absl::Status Create(const GraphDef& graph) = 0;
  // Adds nodes to the graph (their names must be new).
  virtual absl::Status Extend(const GraphDef& graph) = 0;

  virtual absl::Status Run(const RunOptions& run_options,
                           const std::vector<std::pair<std::string, Tensor>>& inputs,
                           const std::vector<std::string>& output_tensor_names,
                           const std::vector<std::string>& target_node_names,
                           std::vector<Tensor>* outputs, RunMetadata* run_metadata) = 0;
  absl::Status Run(const std::vector<std::pair<std::string, Tensor>>& inputs,
                   const std::vector<std::string>& output_tensor_names,
                   const std::vector<std::string>& target_node_names,
                   std::vector<Tensor>* outputs) {
    return Run(RunOptions(), inputs, output_tensor_names, target_node_names, outputs, nullptr);
  }

  // Binds the feeds, fetches, targets and run options of `callable_options`
  // and sets `*out_handle` to a handle for RunCallable. Errors as Run's for
  // the same names.
  using CallableHandle = int64_t;
  virtual absl::Status MakeCallable(const CallableOptions& /*callable_options*/,
                                    CallableHandle* /*out_handle*/) {
    return absl::UnimplementedError("MakeCallable is not implemented by this session");
  }
  // Runs the callable: `feed_tensors` in the order of its options' `feed`;
  // `fetch_tensors` (which must be given when it fetches anything) receives
  // its fetches in the order of `fetch`. May be called from many threads at
  // once. An unknown or released handle is InvalidArgument.
  virtual absl::Status RunCallable(CallableHandle /*handle*/,
                                   const std::vector<Tensor>& /*feed_tensors*/,
                                   std::vector<Tensor>* /*fetch_tensors*/,
                                   RunMetadata* /*run_metadata*/) {
    return absl::UnimplementedError("RunCallable is not implemented by this session");
  }
  // Frees the callable; calls of it already running are not affected.
  virtual absl::Status ReleaseCallable(CallableHandle /*handle*/) {
    return absl::UnimplementedError("ReleaseCallable is not implemented by this session");
  }

  // The session's devices. Pointers live as long as the session.
  virtual std::vector<Device*> ListDevices() const = 0;

  // Ends the session: cancels the steps that are running, waits for them to
  // return and frees the executors. Later Create, Extend, Run, MakeCallable
  // and RunCallable calls return Cancelled.
  virtual absl::Status Close() = 0;
};

// A DirectSession (the in-process session).
absl::StatusOr<std::unique_ptr<Session>> NewSession(const SessionOptions& options);

}  // namespace minitf

#endif  // MINITF_SESSION_SESSION_H_
