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
#ifndef MINITF_SESSION_SESSION_H_
#define MINITF_SESSION_SESSION_H_

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

  // The session's devices. Pointers live as long as the session.
  virtual std::vector<Device*> ListDevices() const = 0;

  // Ends the session: later Runs fail with FailedPrecondition.
  virtual absl::Status Close() = 0;
};

// A DirectSession (the in-process session).
absl::StatusOr<std::unique_ptr<Session>> NewSession(const SessionOptions& options);

}  // namespace minitf

#endif  // MINITF_SESSION_SESSION_H_
