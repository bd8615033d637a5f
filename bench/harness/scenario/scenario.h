// Scenario: what a co-location experiment runs — the GPU, the jobs sharing
// it, and a timeline of control actions — read from a JSON file (or a CSV
// job list), validated, with errors naming the file and the field.
//
//   MINITF_ASSIGN_OR_RETURN(Scenario s, LoadScenario("bench/scenarios/antman_memory.json"));
//   for (const JobSpec& job : s.jobs) { ... }
//
// JSON form (docs/EXPERIMENTS.md):
//
//   {"name": "antman_memory",
//    "device": {"simgpu": "memory=16GiB,mode=timing"},
//    "duration_s": 60,
//    "jobs": [{"name": "guarantee", "model": "cnn", "batch_size": 64,
//              "model_params": {"image_size": 32, "channels": 64},
//              "role": "guarantee", "duration_s": 60,
//              "memory_limit": "6GiB", "perf_control": 100,
//              "start_s": 0, "pacing": "precise",
//              "stream_priority": "high", "input_ms": 20}, ...],
//    "timeline": [{"at_s": 10, "job": "opportunistic", "maxDeviceMem": "1GiB"},
//                 {"at_s": 30, "job": "opportunistic", "perfControl": 10}]}
//
// CSV form (a job list, as other GPU-sharing harnesses write it):
//
//   submit_time,model_name,batch_size,iterations,gpu_requests,priority
//   0,cnn,64,200,1,0
//
// priority 0 is a guarantee job, anything else opportunistic; gpu_requests
// must be 1 (one shared GPU); there is no timeline. A job list's scenario
// lasts until kCsvTailSeconds after its last submission (the run ends sooner
// once every job has done its iterations).
//
// What the parsers check, beyond each field's type and range:
//  - every key is known (model_params' keys are the model builder's to
//    check), and no object gives a key twice;
//  - names (the scenario's and each job's) name files: 1 to 64 of
//    [A-Za-z0-9._-], not starting with '.' or '-'; job names are distinct
//    even ignoring case;
//  - times are finite and at most kMaxScenarioSeconds; a job starts, and a
//    timeline action happens, before the scenario ends.
// What still runs, but not as written, is a warning in Scenario::warnings.
#ifndef MINITF_BENCH_HARNESS_SCENARIO_SCENARIO_H_
#define MINITF_BENCH_HARNESS_SCENARIO_SCENARIO_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "bench/harness/scenario/graph_job_spec.h"
#include "stream/stream_priority.h"

namespace minitf::harness {

enum class JobRole { kGuarantee, kOpportunistic };
const char* JobRoleName(JobRole role);

struct JobSpec {
  std::string name;
  std::string model;  // "mlp", "cnn", "transformer", "graphdef"
  // Model size parameters by name (e.g. "channels" -> 64); the model's
  // builder checks them.
  std::map<std::string, int64_t> model_params;
  // Model "graphdef": the graph file, its ops and feeds (graph_job.h).
  GraphJobSpec graph;
  int batch_size = 32;
  int64_t steps = 0;         // 0: run for duration_s
  double duration_s = 0;     // 0: until the scenario ends (or steps)
  JobRole role = JobRole::kOpportunistic;
  int64_t memory_limit = 0;  // bytes; 0: the device's default share
  int perf_control = 100;
  double start_s = 0;
  std::string pacing = "precise";
  // "high", "default" or "low" (stream_priority.h); "": by role, high for a
  // guarantee job and low for an opportunistic one.
  std::string stream_priority;
  // Host time each step waits for its input before it runs (a synchronous
  // input pipeline reading and decoding files), launching no GPU work
  // meanwhile; 0..kMaxInputMs. Step rates include it, as a user sees them.
  double input_ms = 0;
};

// The longest input wait of one step a job may ask for.
inline constexpr double kMaxInputMs = 60000;

// The priority of the job's GPU streams: stream_priority, or its role's.
se::StreamPriority JobStreamPriority(const JobSpec& job);

// At `at_s`, write the job's config file with the fields given.
struct TimelineAction {
  double at_s = 0;
  std::string job;
  std::optional<int64_t> max_device_mem;
  std::optional<int> perf_control;
};

// Every time in a scenario, and each time flag of `minitf colocate`, is at
// most this many seconds (about 116 days): longer than any experiment, and
// far from where a time in microseconds overflows int64 (292,000 years),
// however a scenario is scaled (a duration is at least kMinDurationSeconds).
inline constexpr double kMaxScenarioSeconds = 1e7;
inline constexpr double kMinDurationSeconds = 1e-3;
inline constexpr double kCsvTailSeconds = 60;

struct Scenario {
  // Names the default output directory (runs/<name>); without a "name", the
  // file's name without directory and extension.
  std::string name;
  std::string simgpu_options;  // SimGPU option string (docs/SIMGPU.md)
  std::string platform;        // "" = CUDA when present, else SimGPU
  double duration_s = 60;
  std::vector<JobSpec> jobs;
  std::vector<TimelineAction> timeline;  // sorted by at_s (stable)
  // What the file asks for that the run will not do as written, each a
  // sentence naming the file and the field: a job whose start_s +
  // duration_s passes the scenario's end (it is cut there), a timeline
  // action after its job stops (it has no effect). For the caller to show
  // before the run; the parsers print nothing.
  std::vector<std::string> warnings;
};

// Parses a scenario; `file_name` names the file in errors, and its stem is
// the default name. InvalidArgument naming the field and showing the value
// (escaped, and shortened when long): bad JSON (with its line and column),
// an unknown key (with the closest known one) or a key given twice, a
// missing or mistyped field, an unknown model, role, pacing policy or
// stream priority, a name that is not a safe file name, a duplicate job
// name, a timeline action for an unknown job or with nothing to set, a time
// that is negative, not finite, too large or at or after the scenario's
// end, perfControl outside 0..100, input_ms not a finite number in
// 0..kMaxInputMs, a size that does not parse.
absl::StatusOr<Scenario> ParseScenarioJson(absl::string_view content, absl::string_view file_name);
absl::StatusOr<Scenario> ParseScenarioCsv(absl::string_view content, absl::string_view file_name);
// One job object of a scenario's "jobs", alone (`minitf job`'s file); the
// same checks and errors as ParseScenarioJson's for that job.
absl::StatusOr<JobSpec> ParseJobJson(absl::string_view content, absl::string_view file_name);

// The largest scenario file LoadScenario reads.
inline constexpr int64_t kMaxScenarioFileBytes = int64_t{16} << 20;

// Reads `path` and parses it by its extension (.json or .csv). NotFound
// (or the error's own code) naming the file when it cannot be opened;
// InvalidArgument when it is a directory or not a regular file (a FIFO or
// a device, which could block or never end) or is larger than
// kMaxScenarioFileBytes.
absl::StatusOr<Scenario> LoadScenario(const std::string& path);

// "16GiB", "512MiB", "1.5GB", or a plain integer of bytes.
absl::StatusOr<int64_t> ParseByteSize(absl::string_view text);

// A time flag's value (`flag` names it in errors): a finite number of
// seconds in kMinDurationSeconds..kMaxScenarioSeconds, else InvalidArgument.
absl::StatusOr<double> ParseSeconds(absl::string_view flag, absl::string_view text);

}  // namespace minitf::harness

#endif  // MINITF_BENCH_HARNESS_SCENARIO_SCENARIO_H_
