// Coordinator: AntMan's local coordinator, one per machine. It watches the
// jobs of one directory DIR (AntMan's hostPath) and steers them in closed
// loop, only through their files. A job's files are in a directory of its
// own, DIR/<job>/ (a pod mounts only its own, docs/DEPLOY.md), or, for jobs
// started by the same user as the coordinator (`minitf colocate`), side by
// side in DIR itself:
//
//   DIR/<job>/job.json     DIR/<job>.job.json     the job's role, process
//                                                 id and PID namespace, and
//                                                 a heartbeat (heartbeatUs)
//                                                 rewritten every second (by
//                                                 the job: `minitf job`, or
//                                                 the co-location harness)
//   DIR/<job>/status.json  DIR/<job>.status.json  its statistics
//                                                 (docs/ANTMAN.md): step
//                                                 count and time, device
//                                                 memory peak, perfControl
//   DIR/<job>/config.json  DIR/<job>.config.json  its config, rewritten by
//                                                 the coordinator
//
// The job's name is the directory's (or the files'): a registration cannot
// claim another job's. Trust: a job directory must be a directory (not a
// link) that others may not write in, and every file of a job must belong
// to the directory's owner (for side-by-side files, DIR's) and be writable
// by no other user; a job whose files are not is ignored (one `ignored`
// decision, until that changes), and the coordinator writes only its
// config, in its directory, never through a link.
//
//   Coordinator coordinator(options);
//   while (running) {
//     MINITF_ASSIGN_OR_RETURN(std::vector<Decision> made, coordinator.Tick());
//     for (const Decision& d : made) log << DecisionCsvRow(d);
//     absl::SleepFor(absl::Seconds(options.interval_s));
//   }
//
// Memory: a guarantee job keeps the device memory its statistics say it
// uses (its peak) plus a margin, and may grow into everything no other
// guarantee job keeps; the opportunistic jobs share what the guarantee jobs
// do not keep. Compute: guarantee jobs run unrestricted; the opportunistic
// jobs' perfControl is steered so that every guarantee job stays at
// `target` of its solo step rate, which the coordinator measures itself by
// suspending the opportunistic jobs for `calibrate_s` (when a guarantee job
// appears, and every `recalibrate_s`). A change is judged once every
// opportunistic job has taken a step under it and a window has passed
// since (at most `max_settle_s` after it). Two policies steer it:
//   antman  AntMan's coordinator as its paper describes it: fixed steps,
//           down by 10 when a guarantee job is below target, up by 10 when
//           every one is above it, judged after each change has settled;
//   tgs     TGS's adaptive rate control: the rate (perfControl) rises
//           multiplicatively (x1.5) while the guarantee jobs keep their
//           target and is halved when one falls below it.
// Faults: a job is lost, and its memory and GPU time go back to the others,
// when its process is gone, its heartbeat is older than `stale_s`, or its
// status has not been rewritten for `stale_s` scaled by 100 / perfControl
// (a paced job steps slowly; a suspended one not at all).
// A status file that does not parse is ignored (the last good one counts),
// with a decision row saying so. The jobs keep their last config if the
// coordinator dies; a new one takes the configs on disk as its starting
// point and calibrates again.
//
// Not thread-safe: one coordinating thread.
#ifndef MINITF_SESSION_ANTMAN_COORDINATOR_H_
#define MINITF_SESSION_ANTMAN_COORDINATOR_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace minitf {

// What a policy of the caller's sees of a live job, each round.
struct CoordinatedJob {
  std::string name;
  std::string role;            // "guarantee" or "opportunistic"
  int64_t steps = 0;           // its step count, from its statistics
  double steps_per_s = -1;     // over the last window_s; -1: not measured yet
  int64_t peak_bytes = 0;      // its device memory peak, from its statistics
  int64_t max_device_mem = 0;  // its config's limit now (0: none yet)
  int perf_control = 100;      // its config's perfControl now
};
// A job's config as such a policy gives it.
struct CoordinatedConfig {
  int64_t max_device_mem = 0;  // bytes, > 0
  int perf_control = 100;      // 0 (suspended) to 100
};
// A policy of the caller's (the Python package's minitf.Coordinator): given
// the seconds since the coordinator started and every live job, the configs
// to write, by job name; a job left out keeps its config. An error stops
// the round (Tick returns it).
using CoordinatorPolicyFn = std::function<absl::StatusOr<std::map<std::string, CoordinatedConfig>>(
    double time_s, const std::vector<CoordinatedJob>& jobs)>;

struct CoordinatorOptions {
  std::string dir;                // the jobs' files
  std::string policy = "antman";  // "antman" or "tgs"
  int64_t gpu_memory_bytes = 0;   // the GPU's capacity. REQUIRES: > 0
  double target = 0.97;           // guarantee jobs' step rate, as a fraction of solo
  double window_s = 3;            // step rates are measured over this long
  double calibrate_s = 3;         // how long a solo measurement suspends the others
  double recalibrate_s = 60;      // solo rates are measured again this often
  double stale_s = 10;            // a status unchanged this long: the job is lost
  double max_settle_s = 60;       // a change is judged this long after it at the latest
  double memory_margin = 0.1;     // guarantee jobs keep their peak times 1 + this
  int64_t memory_floor_bytes = int64_t{256} << 20;  // the least a job is given
  // The time source; null: absl::Now. Tests pass a fake clock.
  std::function<absl::Time()> clock;
  // When set, it decides every job's config instead of `policy`; the
  // coordinator still reads, trusts, measures and writes as above.
  CoordinatorPolicyFn custom_policy;
};

// One change the coordinator made or one event it saw, a row of its log.
struct Decision {
  double time_s = 0;  // since the coordinator started
  std::string job;
  std::string setting;  // "maxDeviceMem", "perfControl", "lost", "found", "ignored", ...
  std::string old_value;
  std::string new_value;
  std::string reason;  // the figures it used
};

// The files of job <job> side by side in the coordinator's directory DIR:
// DIR/<job> + one of these.
inline constexpr char kRegistrationSuffix[] = ".job.json";
inline constexpr char kConfigSuffix[] = ".config.json";
inline constexpr char kStatusSuffix[] = ".status.json";
// The files of job <job> in a directory of its own, DIR/<job>/.
inline constexpr char kRegistrationName[] = "job.json";
inline constexpr char kConfigName[] = "config.json";
inline constexpr char kStatusName[] = "status.json";

// Where one job's files are.
struct JobFiles {
  std::string home;  // the directory they are in: DIR/<job> or DIR
  std::string registration;
  std::string config;
  std::string status;
  bool own_directory = false;  // DIR/<job>/, else side by side in DIR
};
JobFiles SideBySideJobFiles(const std::string& dir, const std::string& job);
JobFiles OwnDirectoryJobFiles(const std::string& dir, const std::string& job);

// The registration that goes with a job's config file: <name>.job.json
// beside <name>.config.json, job.json beside config.json; "" for a config
// file named otherwise (the job then does not register).
std::string RegistrationBeside(const std::string& config_file);

// Writes DIR/<job>.job.json (JobRegistrationJson at `now`); an error names
// the file.
absl::Status WriteJobRegistration(const std::string& dir, const std::string& job,
                                  const std::string& role, absl::Time now);

// This process's PID namespace ("pid:[4026531836]"; "" when unknown). A
// job's process id means something to the coordinator only in the same
// one: jobs in other containers are judged by their statistics alone.
std::string PidNamespace();

// A job's registration, <job>.job.json: its name and role, this process's
// id and PID namespace, and `now` as its heartbeat. A job rewrites it every
// second while it runs.
std::string JobRegistrationJson(const std::string& name, const std::string& role, absl::Time now);

std::string DecisionCsvHeader();
std::string DecisionCsvRow(const Decision& d);

// "antman" or "tgs"; InvalidArgument naming the value otherwise.
absl::Status CheckCoordinatorPolicy(const std::string& policy);

class Coordinator {
 public:
  explicit Coordinator(CoordinatorOptions options);

  // One round: reads every job's files, decides, and rewrites the configs
  // that change. Returns what it decided and saw; an error (a config that
  // cannot be written) names the file.
  absl::StatusOr<std::vector<Decision>> Tick();

  // The solo step rate measured for a guarantee job (0: not yet).
  double SoloRate(const std::string& job) const;

 private:
  struct Point {
    int64_t time_us = 0;
    int64_t steps = 0;
  };
  struct Job {
    JobFiles files;
    std::string role;  // "guarantee" or "opportunistic"
    int64_t pid = 0;               // 0: not known, or in another PID namespace
    std::deque<Point> points;      // from its status file, oldest first
    int64_t peak_bytes = 0;        // device peak, from its status file
    int64_t status_time_us = 0;    // the status file's timestampUs
    int64_t heartbeat_us = 0;      // its registration's heartbeatUs (0: none)
    absl::Time status_changed;     // when the coordinator last saw it change
    std::string bad_status;        // the last parse error reported
    std::string bad_config;        // the last refusal to write its config reported
    bool lost = false;
    bool configured = false;       // its config has been read or written
    int64_t max_device_mem = 0;    // its config's limit (0: none)
    int perf_control = 100;        // its config's perfControl
    double solo_rate = 0;          // guarantee jobs: measured alone
  };

  double Seconds(absl::Time t) const;
  void Decide(absl::Time now, const std::string& job, const std::string& setting,
              std::string old_value, std::string new_value, std::string reason,
              std::vector<Decision>* made) const;

  // Reading the directory, one round: the jobs registered (their
  // registrations), those gone or no longer trusted forgotten; each one's
  // registration (a new one's role, process and starting config; false:
  // not a valid one yet), its statistics, and whether it is still alive.
  void Read(std::vector<Decision>* made);
  std::map<std::string, JobFiles> RegisteredJobs(absl::Time now, std::vector<Decision>* made);
  // Whether the job's files may be trusted; an `ignored` decision, once,
  // when not.
  bool Trusted(const std::string& name, const JobFiles& files, absl::Time now,
               std::vector<Decision>* made);
  void ForgetLeftJobs(const std::map<std::string, JobFiles>& registered, absl::Time now,
                      std::vector<Decision>* made);
  bool ReadRegistration(const std::string& name, bool added, absl::Time now, Job& job,
                        std::vector<Decision>* made);
  void ReadStartingConfig(Job& job);
  void ReadStatus(const std::string& name, absl::Time now, Job& job, std::vector<Decision>* made);
  void CheckAlive(const std::string& name, absl::Time now, Job& job, std::vector<Decision>* made);
  double Rate(const Job& job, absl::Time since) const;
  std::map<std::string, int64_t> MemoryPlan() const;
  // perfControl for the opportunistic jobs this round; nullopt: unchanged.
  std::optional<int> ComputePlan(absl::Time now, std::string* reason);
  // ComputePlan's steps: the guarantee jobs' solo rates from the window the
  // opportunistic jobs were suspended for (nullopt: they stay suspended a
  // window more); the next perfControl from the worst guarantee job's rate.
  using NamedJobs = std::vector<std::pair<std::string, Job*>>;
  std::optional<int> EndCalibration(absl::Time now, const NamedJobs& guarantee,
                                    std::string* reason);
  std::optional<int> Steer(absl::Time now, const NamedJobs& guarantee, std::string* reason);
  absl::Status Write(const std::string& name, Job& job, int64_t max_device_mem, int perf_control,
                     const std::string& reason, std::vector<Decision>* made);
  // Write, except that a config path a tenant planted (a link, no regular
  // file) is not written through: an `ignored` decision, once, and OK.
  absl::Status WriteOrIgnore(const std::string& name, Job& job, int64_t max_device_mem,
                             int perf_control, const std::string& reason, absl::Time now,
                             std::vector<Decision>* made);
  // Tick's decisions by options_.custom_policy.
  absl::Status ApplyCustomPolicy(absl::Time now, std::vector<Decision>* made);

  const CoordinatorOptions options_;
  const absl::Time start_;
  std::map<std::string, Job> jobs_;
  // Jobs ignored for their files, and why (said once, until it changes).
  std::map<std::string, std::string> untrusted_;
  // The opportunistic jobs' common perfControl, as steered.
  int opportunistic_perf_ = 100;
  // Calibration: the opportunistic jobs are suspended until calibrate_end_,
  // and resume at the perfControl they had.
  std::optional<absl::Time> calibrate_end_;
  int calibration_extensions_ = 0;
  absl::Time calibrated_at_ = absl::InfinitePast();
  // The last compute change, so the next judgement waits for it to settle:
  // until every opportunistic job has stepped under it (a paced job may
  // sleep for seconds first), and a window after that.
  void Changed(absl::Time now);
  bool Settled(absl::Time now);
  absl::Time changed_at_ = absl::InfinitePast();
  std::map<std::string, int64_t> steps_at_change_;
  std::optional<absl::Time> effective_at_;
};

}  // namespace minitf

#endif  // MINITF_SESSION_ANTMAN_COORDINATOR_H_
