// SessionRunAction and SessionRunActionRegistry: middleware a session runs
// around every Run (AntMan's session-run actions).
//
// An action is registered once per process under a grouping and an integer
// phase. DirectSession::Run runs the PRE_SESSION_RUN actions before the
// step's executors start and the POST_SESSION_RUN actions after they finish
// (with the measured step duration), phases in ascending order, actions of
// one phase in registration order. AntMan's control plane is two POST
// actions: GPUStatistics (phase 1) and GPUResourceManagement (phase 2).
//
//   class CountSteps : public SessionRunAction {
//    public:
//     std::string name() const override { return "CountSteps"; }
//     absl::Status RunAction(const SessionRunActionOptions& o) override { ++steps_; return {}; }
//    private:
//     std::atomic<int> steps_{0};
//   };
//   REGISTER_SESSION_RUN_ACTION(SessionRunActionRegistry::POST_SESSION_RUN, 3, CountSteps);
//
// Actions are shared by every session of the process and may run from
// several sessions at once, so they keep per-session state in the session's
// SessionActionStates (SessionRunActionOptions::states), not in members.
#ifndef MINITF_SESSION_SESSION_RUN_ACTION_H_
#define MINITF_SESSION_SESSION_RUN_ACTION_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "device/device_mgr.h"
#include "platform/mutex.h"
#include "platform/status_macros.h"

namespace minitf {

class Session;
struct SessionOptions;

// State an action keeps for one session (its config listener, its limits in
// force). Destroyed with the session, after its last Run.
class SessionActionState {
 public:
  virtual ~SessionActionState() = default;
};

// The per-session states of every action, by action name. Owned by the
// session. Thread-safe.
class SessionActionStates {
 public:
  // The state `name` keeps, made by `create` on first use. `create` runs
  // under this container's lock: it must not call back into it. Returns
  // null, and keeps nothing, when `create` returns null. Not owned by the
  // caller; lives as long as the container.
  SessionActionState* GetOrCreate(
      absl::string_view name, const std::function<std::unique_ptr<SessionActionState>()>& create);
  // Drops every state (the session does this before its devices go).
  void Clear();

 private:
  Mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<SessionActionState>> states_
      ABSL_GUARDED_BY(mu_);
};

// What an action gets. Pointers are not owned and are valid for the call.
struct SessionRunActionOptions {
  const DeviceMgr* device_mgr = nullptr;
  const DeviceSet* device_set = nullptr;
  Session* session = nullptr;
  const SessionOptions* session_options = nullptr;
  SessionActionStates* states = nullptr;
  // The step's wall time in microseconds (POST only; 0 in PRE).
  int64_t sess_duration_us = 0;
  // Identifies the executors the step ran: stable for one Run signature of
  // one session (DirectSession's executor-cache entry).
  int64_t graph_id = 0;
  int64_t step_id = 0;
};

class SessionRunAction {
 public:
  virtual ~SessionRunAction() = default;
  // Unique within a grouping and phase; errors carry it.
  virtual std::string name() const = 0;
  // An error fails the Run it ran for; the session stays usable.
  virtual absl::Status RunAction(const SessionRunActionOptions& options) = 0;
  // Called by DirectSession::New before it makes the session's devices: the
  // action fills in the options it owns from the environment (AntMan's
  // GPU_CONFIG_FILE) and the device settings it needs. It must keep every
  // value the user set. The default fills in nothing.
  virtual void FillSessionOptions(SessionOptions* options) const {}
};

// Thread-safe. Actions are owned by the registry and never removed.
class SessionRunActionRegistry {
 public:
  // A fixed underlying type: a value from outside (a cast int) is checked,
  // not undefined.
  enum Grouping : int { PRE_SESSION_RUN = 0, POST_SESSION_RUN = 1 };

  SessionRunActionRegistry() = default;
  SessionRunActionRegistry(const SessionRunActionRegistry&) = delete;
  SessionRunActionRegistry& operator=(const SessionRunActionRegistry&) = delete;

  // The process's registry, where REGISTER_SESSION_RUN_ACTION puts actions.
  static SessionRunActionRegistry* Global();

  // AlreadyExists when an action of the same name is in that grouping and
  // phase; InvalidArgument for a null action or an unknown grouping.
  absl::Status Register(Grouping grouping, int phase, std::unique_ptr<SessionRunAction> action);

  // Runs the grouping's actions, phases ascending. The first error stops
  // the run and is returned with the action's name, grouping and phase.
  absl::Status RunGrouping(Grouping grouping, const SessionRunActionOptions& options) const;

  // The action, or null. Not owned by the caller.
  SessionRunAction* GetAction(Grouping grouping, int phase, absl::string_view name) const;

  // Lets every registered action fill in `options` (PRE then POST, phases
  // ascending): how the session learns the settings of the actions it runs
  // without knowing them.
  void FillSessionOptions(SessionOptions* options) const;

  // The names registered under `grouping`, in the order RunGrouping runs them.
  std::vector<std::string> ActionNames(Grouping grouping) const;

 private:
  mutable Mutex mu_;
  // [grouping] phase -> actions in registration order.
  std::map<int, std::vector<std::unique_ptr<SessionRunAction>>> actions_[2] ABSL_GUARDED_BY(mu_);
};

const char* SessionRunActionGroupingName(SessionRunActionRegistry::Grouping grouping);

namespace session_run_action_registration {
// The static object REGISTER_SESSION_RUN_ACTION defines. A failed
// registration (a duplicate name) is logged; the first action stays.
struct Registrar {
  Registrar(SessionRunActionRegistry::Grouping grouping, int phase,
            std::unique_ptr<SessionRunAction> action);
};
}  // namespace session_run_action_registration

}  // namespace minitf

// Registers a default-constructed `Action` in the global registry.
#define REGISTER_SESSION_RUN_ACTION(grouping, phase, Action)                         \
  static ::minitf::session_run_action_registration::Registrar MINITF_STATUS_CONCAT_(    \
      session_run_action_registrar_, __COUNTER__)((grouping), (phase),               \
                                                  std::make_unique<Action>())

#endif  // MINITF_SESSION_SESSION_RUN_ACTION_H_
