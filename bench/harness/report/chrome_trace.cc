#include "bench/harness/report/chrome_trace.h"

#include <cstdint>
#include <map>

#include "absl/strings/str_cat.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "platform/file.h"

namespace minitf::harness {
namespace {

constexpr int kGPUPid = 0;

// A string as a JSON literal, quotes included; bytes that are not UTF-8
// (a scenario path can hold any) become U+FFFD.
std::string Quote(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', /*ensure_ascii=*/false,
                                nlohmann::json::error_handler_t::replace);
}

// Fixed tracks first, in this order; executor threads after them.
int FixedTrackOrder(const std::string& track) {
  if (track == "steps") return 1;
  if (track == "GPU compute stream") return 2;
  if (track == "idle slots") return 3;
  if (track == "GPU copies") return 4;
  return 0;
}

class TraceWriter {
 public:
  void Event(const std::string& json_object) {
    if (!first_) out_ += ",\n";
    first_ = false;
    out_ += json_object;
  }
  void Name(const char* kind, int pid, int tid, const std::string& name) {
    Event(fmt::format(R"({{"ph":"M","name":"{}","pid":{},"tid":{},"args":{{"name":{}}}}})", kind,
                      pid, tid, Quote(name)));
  }
  void SortIndex(const char* kind, int pid, int tid, int index) {
    Event(fmt::format(R"({{"ph":"M","name":"{}","pid":{},"tid":{},"args":{{"sort_index":{}}}}})",
                      kind, pid, tid, index));
  }
  std::string Finish() { return "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n" + out_ + "\n]}\n"; }

 private:
  std::string out_;
  bool first_ = true;
};

void WriteJob(const JobResult& job, int pid, TraceWriter* w) {
  w->Name("process_name", pid, 0,
          absl::StrCat("job ", job.spec.name, " (", JobRoleName(job.spec.role), ")"));
  w->SortIndex("process_sort_index", pid, 0, pid);
  std::map<std::string, int> tids;
  for (const TraceSpan& span : job.trace) {
    auto [it, inserted] = tids.emplace(span.track, 0);
    if (!inserted) continue;
    const int fixed = FixedTrackOrder(span.track);
    it->second = fixed > 0 ? fixed : 100 + static_cast<int>(tids.size());
    w->Name("thread_name", pid, it->second, span.track);
    w->SortIndex("thread_sort_index", pid, it->second, it->second);
  }
  for (const TraceSpan& span : job.trace) {
    const char* category = span.track == "steps"        ? "step"
                           : span.track == "idle slots" ? "idle"
                                                        : "op";
    std::string args = span.op.empty() ? "{}" : fmt::format(R"({{"op":{}}})", Quote(span.op));
    w->Event(fmt::format(
        R"({{"name":{},"cat":"{}","ph":"X","ts":{},"dur":{},"pid":{},"tid":{},"args":{}}})",
        Quote(span.name), category, span.start_us, span.dur_us, pid, tids[span.track], args));
  }
}

}  // namespace

std::string ChromeTraceJson(const ExperimentResult& result) {
  TraceWriter w;
  w.Name("process_name", kGPUPid, 0, absl::StrCat("GPU (", result.scenario.name, ")"));
  w.SortIndex("process_sort_index", kGPUPid, 0, 0);
  w.Name("thread_name", kGPUPid, 1, "timeline actions");
  for (const DeviceSample& s : result.timeline) {
    const int64_t ts = static_cast<int64_t>(s.time_s * 1e6);
    w.Event(fmt::format(
        R"({{"name":"GPU utilisation %","ph":"C","ts":{},"pid":{},"args":{{"busy":{:.1f}}}}})", ts,
        kGPUPid, 100 * s.utilisation));
    std::string memory;
    for (size_t j = 0; j < s.jobs.size() && j < result.jobs.size(); ++j) {
      absl::StrAppend(&memory, j > 0 ? "," : "", Quote(result.jobs[j].spec.name), ":",
                      s.jobs[j].device_pool_bytes);
    }
    w.Event(fmt::format(R"js({{"name":"device memory (bytes)","ph":"C","ts":{},"pid":{},"args":{{{}}}}})js",
                        ts, kGPUPid, memory));
  }
  for (const PerformedAction& p : result.actions) {
    std::string what = p.action.job;
    if (p.action.max_device_mem) absl::StrAppend(&what, " maxDeviceMem ", *p.action.max_device_mem);
    if (p.action.perf_control) absl::StrAppend(&what, " perfControl ", *p.action.perf_control);
    w.Event(fmt::format(R"({{"name":{},"cat":"action","ph":"i","s":"g","ts":{},"pid":{},"tid":1}})",
                        Quote(what), static_cast<int64_t>(p.time_s * 1e6), kGPUPid));
  }
  for (size_t i = 0; i < result.jobs.size(); ++i) {
    WriteJob(result.jobs[i], static_cast<int>(i) + 1, &w);
  }
  return w.Finish();
}

absl::Status WriteChromeTrace(const ExperimentResult& result, const std::string& path) {
  return WriteFileAtomically(path, ChromeTraceJson(result));
}

}  // namespace minitf::harness
