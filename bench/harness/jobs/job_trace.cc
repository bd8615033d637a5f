#include "bench/harness/jobs/job_trace.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace minitf::harness {
namespace {

constexpr char kSteps[] = "steps";
constexpr char kCompute[] = "GPU compute stream";
constexpr char kCopies[] = "GPU copies";
constexpr char kSlots[] = "idle slots";

struct NodeSpan {
  const NodeExecStats* node;
  int64_t start_us;  // the op's start (launch, for an async kernel)
  int64_t end_us;
};

}  // namespace

JobTrace::JobTrace(absl::Time origin, size_t max_spans)
    : origin_(origin), max_spans_(max_spans) {}

int64_t JobTrace::Micros(absl::Time t) const { return absl::ToInt64Microseconds(t - origin_); }

void JobTrace::AddStep(int64_t step, absl::Time run_start, absl::Time run_end,
                       const StepStats& stats, const std::vector<GpuOpManager::IdleSlot>& slots,
                       BoundaryIdle idle) {
  size_t nodes = 0;
  for (const DeviceStepStats& dev : stats.dev_stats) nodes += dev.node_stats.size();
  if (spans_.size() + nodes + slots.size() + 2 > max_spans_) {
    ++dropped_steps_;
    return;
  }
  const int64_t origin_us = absl::ToUnixMicros(origin_);
  const int64_t run_end_us = Micros(run_end);
  spans_.push_back({absl::StrCat("step ", step), "", kSteps, Micros(run_start),
                    run_end_us - Micros(run_start)});
  // The boundary's idle ends the Run.
  if (idle.suspension > absl::ZeroDuration()) {
    const int64_t d = absl::ToInt64Microseconds(idle.suspension);
    spans_.push_back({"suspended", "", kSteps, run_end_us - d, d});
  } else if (idle.sleep > absl::ZeroDuration()) {
    const int64_t d = absl::ToInt64Microseconds(idle.sleep);
    spans_.push_back({"pacing sleep", "", kSteps, run_end_us - d, d});
  }

  std::vector<NodeSpan> compute, copies;
  for (const DeviceStepStats& dev : stats.dev_stats) {
    const bool on_gpu = absl::StrContains(dev.device, "GPU");
    for (const NodeExecStats& n : dev.node_stats) {
      const int64_t start = n.all_start_micros - origin_us + n.op_start_rel_micros;
      const int64_t end = n.all_start_micros - origin_us + n.op_end_rel_micros;
      if (n.async && (n.op == "_Send" || n.op == "_Recv" || n.op == "_HostRecv")) {
        copies.push_back({&n, start, end});
      } else if (n.async && on_gpu) {
        compute.push_back({&n, start, end});
      } else {
        spans_.push_back({n.node_name, n.op, absl::StrCat("thread ", n.thread_id), start,
                          std::max<int64_t>(end - start, 0)});
      }
    }
  }
  // A FIFO stream finishes kernels in launch order: a kernel ran from when
  // it was launched or its predecessor finished, to when it finished.
  auto add_fifo = [this](std::vector<NodeSpan>& list, const char* track, int64_t* free_us) {
    std::sort(list.begin(), list.end(),
              [](const NodeSpan& a, const NodeSpan& b) { return a.end_us < b.end_us; });
    for (const NodeSpan& s : list) {
      const int64_t start = std::min(std::max(s.start_us, *free_us), s.end_us);
      spans_.push_back({s.node->node_name, s.node->op, track, start, s.end_us - start});
      *free_us = std::max(*free_us, s.end_us);
    }
  };
  add_fifo(compute, kCompute, &compute_free_us_);
  add_fifo(copies, kCopies, &copies_free_us_);
  for (const GpuOpManager::IdleSlot& slot : slots) {
    spans_.push_back({"idle", "", kSlots, Micros(slot.start),
                      absl::ToInt64Microseconds(slot.length)});
  }
}

std::string TraceSpansJson(const std::vector<TraceSpan>& spans, int64_t dropped_steps) {
  nlohmann::json rows = nlohmann::json::array();
  for (const TraceSpan& s : spans) rows.push_back({s.name, s.op, s.track, s.start_us, s.dur_us});
  const nlohmann::json j = {{"dropped_steps", dropped_steps}, {"spans", std::move(rows)}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

absl::Status ParseTraceSpansJson(absl::string_view content, absl::string_view file_name,
                                 std::vector<TraceSpan>* spans, int64_t* dropped_steps) {
  const nlohmann::json j = nlohmann::json::parse(content, nullptr, /*allow_exceptions=*/false);
  const auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("trace file '", file_name, "': ", why));
  };
  if (!j.is_object() || !j.contains("spans") || !j["spans"].is_array() ||
      !j.contains("dropped_steps") || !j["dropped_steps"].is_number_integer()) {
    return bad("want {\"dropped_steps\": N, \"spans\": [...]}");
  }
  spans->clear();
  for (const nlohmann::json& row : j["spans"]) {
    if (!row.is_array() || row.size() != 5 || !row[0].is_string() || !row[1].is_string() ||
        !row[2].is_string() || !row[3].is_number_integer() || !row[4].is_number_integer()) {
      return bad(absl::StrCat("span ", spans->size(),
                              " is not [name, op, track, start_us, dur_us]"));
    }
    spans->push_back({row[0].get<std::string>(), row[1].get<std::string>(),
                      row[2].get<std::string>(), row[3].get<int64_t>(), row[4].get<int64_t>()});
  }
  *dropped_steps = j["dropped_steps"].get<int64_t>();
  return absl::OkStatus();
}

}  // namespace minitf::harness
