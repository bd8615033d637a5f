#include "session/session_run_action.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/cc/scope.h"
#include "platform/mutex.h"
#include "session/direct_session.h"
#include "tests/testlib/test_ops.h"

namespace minitf {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// What the recording actions saw, in order.
struct Log {
  Mutex mu;
  std::vector<std::string> entries ABSL_GUARDED_BY(mu);
  std::vector<SessionRunActionOptions> options ABSL_GUARDED_BY(mu);
  // _TestCountRuns executions seen by each entry.
  std::vector<int64_t> count_runs ABSL_GUARDED_BY(mu);

  std::vector<std::string> Entries() {
    MutexLock lock(&mu);
    return entries;
  }
};

class RecordingAction : public SessionRunAction {
 public:
  RecordingAction(std::string name, Log* log, absl::Status result = absl::OkStatus())
      : name_(std::move(name)), log_(log), result_(std::move(result)) {}
  std::string name() const override { return name_; }
  absl::Status RunAction(const SessionRunActionOptions& options) override {
    MutexLock lock(&log_->mu);
    log_->entries.push_back(name_);
    log_->options.push_back(options);
    log_->count_runs.push_back(test::TestCountRunsValue());
    return result_;
  }

 private:
  const std::string name_;
  Log* const log_;
  const absl::Status result_;
};

std::unique_ptr<SessionRunAction> Record(std::string name, Log* log,
                                         absl::Status result = absl::OkStatus()) {
  return std::make_unique<RecordingAction>(std::move(name), log, std::move(result));
}

TEST(SessionRunActionRegistryTest, RunsPhasesInAscendingOrderThenRegistrationOrder) {
  SessionRunActionRegistry registry;
  Log log;
  using R = SessionRunActionRegistry;
  ASSERT_TRUE(registry.Register(R::POST_SESSION_RUN, 2, Record("p2a", &log)).ok());
  ASSERT_TRUE(registry.Register(R::POST_SESSION_RUN, 1, Record("p1", &log)).ok());
  ASSERT_TRUE(registry.Register(R::POST_SESSION_RUN, 2, Record("p2b", &log)).ok());
  ASSERT_TRUE(registry.Register(R::POST_SESSION_RUN, -3, Record("pm3", &log)).ok());
  ASSERT_TRUE(registry.Register(R::PRE_SESSION_RUN, 0, Record("pre", &log)).ok());

  ASSERT_TRUE(registry.RunGrouping(R::POST_SESSION_RUN, {}).ok());
  EXPECT_THAT(log.Entries(), ElementsAre("pm3", "p1", "p2a", "p2b"));
  EXPECT_THAT(registry.ActionNames(R::POST_SESSION_RUN), ElementsAre("pm3", "p1", "p2a", "p2b"));
  EXPECT_THAT(registry.ActionNames(R::PRE_SESSION_RUN), ElementsAre("pre"));
}

TEST(SessionRunActionRegistryTest, FirstErrorStopsTheGroupingAndNamesTheAction) {
  SessionRunActionRegistry registry;
  Log log;
  using R = SessionRunActionRegistry;
  ASSERT_TRUE(registry.Register(R::PRE_SESSION_RUN, 1, Record("ok", &log)).ok());
  ASSERT_TRUE(registry
                  .Register(R::PRE_SESSION_RUN, 2,
                            Record("broken", &log, absl::UnavailableError("no quota")))
                  .ok());
  ASSERT_TRUE(registry.Register(R::PRE_SESSION_RUN, 3, Record("never", &log)).ok());

  absl::Status status = registry.RunGrouping(R::PRE_SESSION_RUN, {});
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(status.message(), HasSubstr("'broken'"));
  EXPECT_THAT(status.message(), HasSubstr("PRE_SESSION_RUN phase 2"));
  EXPECT_THAT(status.message(), HasSubstr("no quota"));
  EXPECT_THAT(log.Entries(), ElementsAre("ok", "broken"));
}

TEST(SessionRunActionRegistryTest, DuplicateNamesAreRejectedPerGroupingAndPhase) {
  SessionRunActionRegistry registry;
  Log log;
  using R = SessionRunActionRegistry;
  ASSERT_TRUE(registry.Register(R::POST_SESSION_RUN, 1, Record("a", &log)).ok());
  absl::Status dup = registry.Register(R::POST_SESSION_RUN, 1, Record("a", &log));
  EXPECT_EQ(dup.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(dup.message(), HasSubstr("'a'"));
  // The same name elsewhere is a different action.
  EXPECT_TRUE(registry.Register(R::POST_SESSION_RUN, 2, Record("a", &log)).ok());
  EXPECT_TRUE(registry.Register(R::PRE_SESSION_RUN, 1, Record("a", &log)).ok());
}

TEST(SessionRunActionRegistryTest, RejectsNullActionsAndUnknownGroupings) {
  SessionRunActionRegistry registry;
  Log log;
  EXPECT_EQ(registry.Register(SessionRunActionRegistry::PRE_SESSION_RUN, 0, nullptr).code(),
            absl::StatusCode::kInvalidArgument);
  const auto bad = static_cast<SessionRunActionRegistry::Grouping>(7);
  EXPECT_EQ(registry.Register(bad, 0, Record("x", &log)).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.RunGrouping(bad, {}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.GetAction(bad, 0, "x"), nullptr);
}

TEST(SessionRunActionRegistryTest, GetActionFindsByGroupingPhaseAndName) {
  SessionRunActionRegistry registry;
  Log log;
  using R = SessionRunActionRegistry;
  auto action = Record("stats", &log);
  SessionRunAction* raw = action.get();
  ASSERT_TRUE(registry.Register(R::POST_SESSION_RUN, 1, std::move(action)).ok());
  EXPECT_EQ(registry.GetAction(R::POST_SESSION_RUN, 1, "stats"), raw);
  EXPECT_EQ(registry.GetAction(R::POST_SESSION_RUN, 2, "stats"), nullptr);
  EXPECT_EQ(registry.GetAction(R::PRE_SESSION_RUN, 1, "stats"), nullptr);
  EXPECT_EQ(registry.GetAction(R::POST_SESSION_RUN, 1, "other"), nullptr);
}

TEST(SessionRunActionRegistryTest, GlobalRegistryHasTheControlPlaneActions) {
  using R = SessionRunActionRegistry;
  EXPECT_NE(R::Global()->GetAction(R::POST_SESSION_RUN, 1, "GPUStatistics"), nullptr);
  EXPECT_NE(R::Global()->GetAction(R::POST_SESSION_RUN, 2, "GPUResourceManagement"), nullptr);
}

TEST(SessionActionStatesTest, CreatesOncePerNameAndKeepsNothingForNull) {
  SessionActionStates states;
  int made = 0;
  auto make = [&made]() -> std::unique_ptr<SessionActionState> {
    ++made;
    return std::make_unique<SessionActionState>();
  };
  SessionActionState* a = states.GetOrCreate("a", make);
  EXPECT_EQ(states.GetOrCreate("a", make), a);
  EXPECT_EQ(made, 1);
  EXPECT_EQ(states.GetOrCreate("none", [] { return nullptr; }), nullptr);
  EXPECT_NE(states.GetOrCreate("none", make), nullptr);
  EXPECT_EQ(made, 2);
}

// A graph with one stateful node: its executions tell whether the step ran.
GraphDef CountGraph() {
  Scope root = Scope::NewRootScope();
  OpBuilder(root.WithOpName("count"), "_TestCountRuns").Finalize1();
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok());
  return def;
}

// nullptr (and a failure of the test) when the session cannot be made.
std::unique_ptr<Session> SessionWith(SessionRunActionRegistry* registry) {
  SessionOptions options;
  options.action_registry = registry;
  auto session = NewSession(options);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return nullptr;
  const absl::Status created = (*session)->Create(CountGraph());
  EXPECT_TRUE(created.ok()) << created;
  return *std::move(session);
}

TEST(DirectSessionActionsTest, PreRunsBeforeTheStepAndPostAfterWithItsDuration) {
  SessionRunActionRegistry registry;
  Log log;
  using R = SessionRunActionRegistry;
  ASSERT_TRUE(registry.Register(R::PRE_SESSION_RUN, 1, Record("pre", &log)).ok());
  ASSERT_TRUE(registry.Register(R::POST_SESSION_RUN, 1, Record("post", &log)).ok());
  std::unique_ptr<Session> session = SessionWith(&registry);
  ASSERT_NE(session, nullptr);

  const int64_t before = test::TestCountRunsValue();
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"count:0"}, {}, &out).ok());
  MutexLock lock(&log.mu);
  ASSERT_THAT(log.entries, ElementsAre("pre", "post"));
  // Other tests of this binary do not run concurrently with this one, so
  // the counter moves only with this session's step.
  EXPECT_EQ(log.count_runs[0], before);
  EXPECT_EQ(log.count_runs[1], before + 1);
  EXPECT_EQ(log.options[0].sess_duration_us, 0);
  EXPECT_GE(log.options[1].sess_duration_us, 0);
  EXPECT_EQ(log.options[1].session, session.get());
  EXPECT_NE(log.options[1].device_mgr, nullptr);
  EXPECT_NE(log.options[1].device_set, nullptr);
  EXPECT_NE(log.options[1].states, nullptr);
  EXPECT_EQ(log.options[0].step_id, log.options[1].step_id);
}

TEST(DirectSessionActionsTest, GraphIdIsStablePerRunSignature) {
  SessionRunActionRegistry registry;
  Log log;
  ASSERT_TRUE(
      registry.Register(SessionRunActionRegistry::POST_SESSION_RUN, 1, Record("post", &log)).ok());
  std::unique_ptr<Session> session = SessionWith(&registry);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"count:0"}, {}, &out).ok());
  ASSERT_TRUE(session->Run({}, {}, {"count"}, &out).ok());
  ASSERT_TRUE(session->Run({}, {"count:0"}, {}, &out).ok());
  MutexLock lock(&log.mu);
  ASSERT_EQ(log.options.size(), 3u);
  EXPECT_EQ(log.options[0].graph_id, log.options[2].graph_id);
  EXPECT_NE(log.options[0].graph_id, log.options[1].graph_id);
  EXPECT_NE(log.options[0].step_id, log.options[2].step_id);
}

TEST(DirectSessionActionsTest, PreErrorFailsTheRunWithoutRunningTheStep) {
  SessionRunActionRegistry registry;
  Log log;
  ASSERT_TRUE(registry
                  .Register(SessionRunActionRegistry::PRE_SESSION_RUN, 1,
                            Record("gate", &log, absl::ResourceExhaustedError("closed")))
                  .ok());
  std::unique_ptr<Session> session = SessionWith(&registry);
  ASSERT_NE(session, nullptr);
  const int64_t before = test::TestCountRunsValue();
  std::vector<Tensor> out;
  absl::Status status = session->Run({}, {"count:0"}, {}, &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(), HasSubstr("'gate'"));
  EXPECT_EQ(test::TestCountRunsValue(), before);
}

// Fails the first Run it sees, then lets the rest through.
class FailOnceAction : public SessionRunAction {
 public:
  std::string name() const override { return "FailOnce"; }
  absl::Status RunAction(const SessionRunActionOptions&) override {
    return calls_++ == 0 ? absl::InternalError("first step rejected") : absl::OkStatus();
  }

 private:
  std::atomic<int> calls_{0};
};

TEST(DirectSessionActionsTest, PostErrorFailsThatRunAndLeavesTheSessionUsable) {
  SessionRunActionRegistry registry;
  ASSERT_TRUE(registry
                  .Register(SessionRunActionRegistry::POST_SESSION_RUN, 2,
                            std::make_unique<FailOnceAction>())
                  .ok());
  std::unique_ptr<Session> session = SessionWith(&registry);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status first = session->Run({}, {"count:0"}, {}, &out);
  EXPECT_EQ(first.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(first.message(), HasSubstr("'FailOnce' (POST_SESSION_RUN phase 2)"));
  ASSERT_TRUE(session->Run({}, {"count:0"}, {}, &out).ok());
  ASSERT_EQ(out.size(), 1u);
}

TEST(DirectSessionActionsTest, NoActionsMeansNothingRuns) {
  SessionRunActionRegistry registry;
  std::unique_ptr<Session> session = SessionWith(&registry);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  EXPECT_TRUE(session->Run({}, {"count:0"}, {}, &out).ok());
  EXPECT_THAT(registry.ActionNames(SessionRunActionRegistry::PRE_SESSION_RUN), IsEmpty());
}

// Fills in a status file unless the user gave one, as AntMan's
// GPUStatistics does from GPU_STATUS_FILE.
class FillingAction : public SessionRunAction {
 public:
  std::string name() const override { return "Filling"; }
  absl::Status RunAction(const SessionRunActionOptions&) override { return absl::OkStatus(); }
  void FillSessionOptions(SessionOptions* options) const override {
    if (options->gpu_status_file.empty()) options->gpu_status_file = "/filled/by/the/action";
    options->config.gpu_options.allow_growth = true;
  }
};

TEST(DirectSessionActionsTest, ActionsFillInTheOptionsTheyOwnAndKeepWhatTheUserSet) {
  SessionRunActionRegistry registry;
  ASSERT_TRUE(registry
                  .Register(SessionRunActionRegistry::POST_SESSION_RUN, 1,
                            std::make_unique<FillingAction>())
                  .ok());
  SessionOptions options;
  options.action_registry = &registry;
  absl::StatusOr<std::unique_ptr<DirectSession>> filled = DirectSession::New(options);
  ASSERT_TRUE(filled.ok()) << filled.status();
  EXPECT_EQ((*filled)->options().gpu_status_file, "/filled/by/the/action");
  EXPECT_TRUE((*filled)->options().config.gpu_options.allow_growth);

  options.gpu_status_file = "/given/by/the/user";
  absl::StatusOr<std::unique_ptr<DirectSession>> given = DirectSession::New(options);
  ASSERT_TRUE(given.ok()) << given.status();
  EXPECT_EQ((*given)->options().gpu_status_file, "/given/by/the/user");
}

TEST(DirectSessionActionsTest, WithoutActionsTheSessionReadsNoControlPlaneSettings) {
  // The session core knows nothing of AntMan: with a registry that has no
  // control-plane actions, GPU_CONFIG_FILE is not read and nothing is
  // switched on for it.
  ASSERT_EQ(setenv("GPU_CONFIG_FILE", "/some/config.json", /*overwrite=*/1), 0);
  SessionRunActionRegistry empty;
  SessionOptions options;
  options.action_registry = &empty;
  absl::StatusOr<std::unique_ptr<DirectSession>> session = DirectSession::New(options);
  unsetenv("GPU_CONFIG_FILE");
  ASSERT_TRUE(session.ok()) << session.status();
  EXPECT_EQ((*session)->options().gpu_config_file, "");
  EXPECT_FALSE((*session)->options().config.gpu_options.allow_growth);
}

}  // namespace
}  // namespace minitf
