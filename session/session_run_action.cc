#include "session/session_run_action.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "platform/logging.h"

namespace minitf {

SessionActionState* SessionActionStates::GetOrCreate(
    absl::string_view name, const std::function<std::unique_ptr<SessionActionState>()>& create) {
  MutexLock lock(&mu_);
  auto it = states_.find(name);
  if (it != states_.end()) return it->second.get();
  std::unique_ptr<SessionActionState> state = create();
  if (state == nullptr) return nullptr;
  SessionActionState* raw = state.get();
  states_.emplace(std::string(name), std::move(state));
  return raw;
}

void SessionActionStates::Clear() {
  absl::flat_hash_map<std::string, std::unique_ptr<SessionActionState>> states;
  {
    MutexLock lock(&mu_);
    states.swap(states_);
  }
  // Destroyed outside the lock: a state's destructor may wait for its own
  // threads (a file listener's callback), which may look states up.
}

const char* SessionRunActionGroupingName(SessionRunActionRegistry::Grouping grouping) {
  switch (grouping) {
    case SessionRunActionRegistry::PRE_SESSION_RUN:
      return "PRE_SESSION_RUN";
    case SessionRunActionRegistry::POST_SESSION_RUN:
      return "POST_SESSION_RUN";
  }
  return "UNKNOWN_GROUPING";
}

SessionRunActionRegistry* SessionRunActionRegistry::Global() {
  static SessionRunActionRegistry* const registry = new SessionRunActionRegistry;
  return registry;
}

absl::Status SessionRunActionRegistry::Register(Grouping grouping, int phase,
                                                std::unique_ptr<SessionRunAction> action) {
  if (grouping != PRE_SESSION_RUN && grouping != POST_SESSION_RUN) {
    return absl::InvalidArgumentError(
        absl::StrCat("Unknown session-run action grouping ", static_cast<int>(grouping)));
  }
  if (action == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("A null session-run action for ",
                                                   SessionRunActionGroupingName(grouping),
                                                   " phase ", phase));
  }
  MutexLock lock(&mu_);
  std::vector<std::unique_ptr<SessionRunAction>>& actions = actions_[grouping][phase];
  for (const auto& existing : actions) {
    if (existing->name() == action->name()) {
      return absl::AlreadyExistsError(absl::StrCat(
          "Session-run action '", action->name(), "' is already registered for ",
          SessionRunActionGroupingName(grouping), " phase ", phase));
    }
  }
  actions.push_back(std::move(action));
  return absl::OkStatus();
}

absl::Status SessionRunActionRegistry::RunGrouping(Grouping grouping,
                                                   const SessionRunActionOptions& options) const {
  if (grouping != PRE_SESSION_RUN && grouping != POST_SESSION_RUN) {
    return absl::InvalidArgumentError(
        absl::StrCat("Unknown session-run action grouping ", static_cast<int>(grouping)));
  }
  // Actions are never removed, so the pointers stay valid after the lock
  // is released; actions run unlocked (they may block, e.g. a suspended job).
  std::vector<std::pair<int, SessionRunAction*>> to_run;
  {
    MutexLock lock(&mu_);
    for (const auto& [phase, actions] : actions_[grouping]) {
      for (const auto& action : actions) to_run.emplace_back(phase, action.get());
    }
  }
  for (const auto& [phase, action] : to_run) {
    absl::Status status = action->RunAction(options);
    if (!status.ok()) {
      return absl::Status(status.code(),
                          absl::StrCat("Session-run action '", action->name(), "' (",
                                       SessionRunActionGroupingName(grouping), " phase ", phase,
                                       ") failed: ", status.message()));
    }
  }
  return absl::OkStatus();
}

SessionRunAction* SessionRunActionRegistry::GetAction(Grouping grouping, int phase,
                                                      absl::string_view name) const {
  if (grouping != PRE_SESSION_RUN && grouping != POST_SESSION_RUN) return nullptr;
  MutexLock lock(&mu_);
  auto it = actions_[grouping].find(phase);
  if (it == actions_[grouping].end()) return nullptr;
  for (const auto& action : it->second) {
    if (action->name() == name) return action.get();
  }
  return nullptr;
}

void SessionRunActionRegistry::FillSessionOptions(SessionOptions* options) const {
  MutexLock lock(&mu_);
  for (const auto& grouping : actions_) {
    for (const auto& [phase, actions] : grouping) {
      for (const auto& action : actions) action->FillSessionOptions(options);
    }
  }
}

std::vector<std::string> SessionRunActionRegistry::ActionNames(Grouping grouping) const {
  std::vector<std::string> names;
  if (grouping != PRE_SESSION_RUN && grouping != POST_SESSION_RUN) return names;
  MutexLock lock(&mu_);
  for (const auto& [phase, actions] : actions_[grouping]) {
    for (const auto& action : actions) names.push_back(action->name());
  }
  return names;
}

namespace session_run_action_registration {

Registrar::Registrar(SessionRunActionRegistry::Grouping grouping, int phase,
                     std::unique_ptr<SessionRunAction> action) {
  absl::Status status =
      SessionRunActionRegistry::Global()->Register(grouping, phase, std::move(action));
  if (!status.ok()) LOG(ERROR, "{}", status);
}

}  // namespace session_run_action_registration

}  // namespace minitf
