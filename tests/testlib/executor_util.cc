#include "tests/testlib/executor_util.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "platform/status_macros.h"
#include "runtime/graph.h"

namespace minitf::test {

absl::StatusOr<std::unique_ptr<Executor>> NewExecutorForFetches(const Scope& root,
                                                                const std::vector<Output>& fetches,
                                                                DeviceBase* device) {
  GraphDef def;
  MINITF_RETURN_IF_ERROR(root.ToGraphDef(&def));
  for (size_t i = 0; i < fetches.size(); ++i) {
    NodeDef r;
    r.name = absl::StrCat("_retval_", i);
    r.op = "_Retval";
    r.input = {fetches[i].name()};
    r.attr["T"] = RemoveRefType(fetches[i].type());
    r.attr["index"] = static_cast<int64_t>(i);
    def.node.push_back(std::move(r));
  }
  MINITF_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, ConvertGraphDefToGraph(def));
  LocalExecutorParams params;
  params.device = device;
  return NewLocalExecutor(params, std::move(graph));
}

}  // namespace minitf::test
