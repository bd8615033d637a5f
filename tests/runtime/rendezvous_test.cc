#include "runtime/rendezvous.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minitf {
namespace {

using ::testing::HasSubstr;

constexpr char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kCpu1[] = "/job:localhost/replica:0/task:0/device:CPU:1";

Rendezvous::ParsedKey Key(const std::string& name) {
  Rendezvous::ParsedKey key;
  absl::Status s = Rendezvous::ParseKey(Rendezvous::CreateKey(kCpu0, 0xabc, kCpu1, name), &key);
  EXPECT_TRUE(s.ok()) << s;
  return key;
}

TEST(RendezvousKeyTest, CreateKeyUsesTensorFlowsFormat) {
  EXPECT_EQ(Rendezvous::CreateKey(kCpu0, 0xabc, kCpu1, "edge_3_x", FrameAndIter{2, 5}),
            absl::StrCat(kCpu0, ";0000000000000abc;", kCpu1, ";edge_3_x;2:5"));
  EXPECT_EQ(Rendezvous::CreateKey("a", ~uint64_t{0}, "b", "t"), "a;ffffffffffffffff;b;t;0:0");
}

TEST(RendezvousKeyTest, ParseKeyInvertsCreateKey) {
  const std::string key =
      Rendezvous::CreateKey(kCpu0, 0x1234567890abcdefULL, kCpu1, "edge_7_y", FrameAndIter{1, 9});
  Rendezvous::ParsedKey parsed;
  ASSERT_TRUE(Rendezvous::ParseKey(key, &parsed).ok());
  EXPECT_EQ(parsed.src_device, kCpu0);
  EXPECT_EQ(parsed.src_incarnation, 0x1234567890abcdefULL);
  EXPECT_EQ(parsed.dst_device, kCpu1);
  EXPECT_EQ(parsed.edge_name, "edge_7_y");
  EXPECT_EQ(parsed.frame_iter.frame_id, 1u);
  EXPECT_EQ(parsed.frame_iter.iter_id, 9);
  EXPECT_EQ(parsed.FullKey(), key);
}

TEST(RendezvousKeyTest, MalformedKeysAreInvalidArgumentsNamingTheKey) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"a;1;b;t", "5 parts"},
      {"a;1;b;t;0:0;extra", "5 parts"},
      {";1;b;t;0:0", "source device"},
      {"a;1;;t;0:0", "destination device"},
      {"a;1;b;;0:0", "tensor name"},
      {"a;xyz;b;t;0:0", "incarnation"},
      {"a;;b;t;0:0", "incarnation"},
      {"a;12345678901234567;b;t;0:0", "incarnation"},
      {"a;1;b;t;0", "FRAME:ITER"},
      {"a;1;b;t;x:0", "FRAME:ITER"},
      {"a;1;b;t;0:-1", "FRAME:ITER"},
  };
  for (const auto& [key, why] : cases) {
    Rendezvous::ParsedKey parsed;
    absl::Status s = Rendezvous::ParseKey(key, &parsed);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << key;
    EXPECT_THAT(std::string(s.message()), HasSubstr(absl::StrCat("'", key, "'"))) << key;
    EXPECT_THAT(std::string(s.message()), HasSubstr(why)) << key;
  }
}

TEST(LocalRendezvousTest, SendBeforeRecvDeliversValueAndArgs) {
  LocalRendezvous rendezvous;
  Rendezvous::Args send_args;
  send_args.alloc_attrs.on_host = true;
  Tensor value = Tensor::Scalar<float>(2.5f);
  ASSERT_TRUE(rendezvous.Send(Key("t"), send_args, value, false).ok());
  bool called = false;
  Rendezvous::Args recv_args;
  rendezvous.RecvAsync(Key("t"), recv_args,
                       [&](const absl::Status& s, const Rendezvous::Args& sa,
                           const Rendezvous::Args&, const Tensor& v, bool is_dead) {
                         called = true;
                         EXPECT_TRUE(s.ok());
                         EXPECT_TRUE(sa.alloc_attrs.on_host);
                         EXPECT_FALSE(is_dead);
                         EXPECT_TRUE(v.SharesBufferWith(value));
                       });
  EXPECT_TRUE(called);  // Already sent: the callback runs inside RecvAsync.
}

TEST(LocalRendezvousTest, RecvBeforeSendWaitsThenRunsOnTheSendersThread) {
  LocalRendezvous rendezvous;
  std::atomic<bool> called{false};
  std::thread::id callback_thread;
  rendezvous.RecvAsync(Key("t"), {},
                       [&](const absl::Status& s, const Rendezvous::Args&,
                           const Rendezvous::Args&, const Tensor& v, bool is_dead) {
                         EXPECT_TRUE(s.ok());
                         EXPECT_EQ(v.scalar<int32_t>()(), 7);
                         callback_thread = std::this_thread::get_id();
                         called = true;
                       });
  EXPECT_FALSE(called);
  std::thread sender([&] {
    ASSERT_TRUE(rendezvous.Send(Key("t"), {}, Tensor::Scalar<int32_t>(7), false).ok());
    EXPECT_TRUE(called);
    EXPECT_EQ(callback_thread, std::this_thread::get_id());
  });
  sender.join();
}

TEST(LocalRendezvousTest, BlockingRecvWaitsForALaterSend) {
  LocalRendezvous rendezvous;
  std::thread sender([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_TRUE(rendezvous.Send(Key("t"), {}, Tensor::Scalar<int32_t>(3), false).ok());
  });
  Tensor v;
  bool is_dead = true;
  ASSERT_TRUE(rendezvous.Recv(Key("t"), {}, &v, &is_dead).ok());
  EXPECT_FALSE(is_dead);
  EXPECT_EQ(v.scalar<int32_t>()(), 3);
  sender.join();
}

TEST(LocalRendezvousTest, DeadnessIsDelivered) {
  LocalRendezvous rendezvous;
  ASSERT_TRUE(rendezvous.Send(Key("t"), {}, Tensor(), true).ok());
  Tensor v;
  bool is_dead = false;
  ASSERT_TRUE(rendezvous.Recv(Key("t"), {}, &v, &is_dead).ok());
  EXPECT_TRUE(is_dead);
  EXPECT_FALSE(v.IsInitialized());
}

TEST(LocalRendezvousTest, SendsOfOneKeyMeetRecvsInOrder) {
  LocalRendezvous rendezvous;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(rendezvous.Send(Key("t"), {}, Tensor::Scalar<int32_t>(i), false).ok());
  }
  for (int i = 0; i < 3; ++i) {
    Tensor v;
    bool is_dead;
    ASSERT_TRUE(rendezvous.Recv(Key("t"), {}, &v, &is_dead).ok());
    EXPECT_EQ(v.scalar<int32_t>()(), i);
  }
}

TEST(LocalRendezvousTest, KeysWithDifferentPartsDoNotMeet) {
  LocalRendezvous rendezvous;
  Rendezvous::ParsedKey other_device;
  ASSERT_TRUE(
      Rendezvous::ParseKey(Rendezvous::CreateKey(kCpu1, 0xabc, kCpu0, "t"), &other_device).ok());
  ASSERT_TRUE(rendezvous.Send(other_device, {}, Tensor::Scalar<int32_t>(1), false).ok());
  bool called = false;
  rendezvous.RecvAsync(Key("t"), {},
                       [&](const absl::Status&, const Rendezvous::Args&, const Rendezvous::Args&,
                           const Tensor&, bool) { called = true; });
  EXPECT_FALSE(called);
  rendezvous.StartAbort(absl::CancelledError("test over"));
  EXPECT_TRUE(called);
}

TEST(LocalRendezvousTest, AbortWakesPendingReceiversAndFailsLaterCalls) {
  LocalRendezvous rendezvous;
  constexpr int kWaiters = 4;
  std::vector<absl::Status> results(kWaiters);
  std::vector<std::thread> waiters;
  std::atomic<int> started{0};
  for (int i = 0; i < kWaiters; ++i) {
    waiters.emplace_back([&, i] {
      Tensor v;
      bool is_dead;
      ++started;
      results[i] = rendezvous.Recv(Key(absl::StrCat("t", i)), {}, &v, &is_dead);
    });
  }
  while (started.load() < kWaiters) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  rendezvous.StartAbort(absl::AbortedError("partition 0 failed"));
  for (std::thread& t : waiters) t.join();
  for (const absl::Status& s : results) {
    EXPECT_EQ(s.code(), absl::StatusCode::kAborted);
    EXPECT_THAT(std::string(s.message()), HasSubstr("partition 0 failed"));
  }
  // Later calls fail at once; a second abort changes nothing.
  rendezvous.StartAbort(absl::InternalError("second"));
  EXPECT_EQ(rendezvous.Send(Key("t"), {}, Tensor::Scalar<int32_t>(1), false).code(),
            absl::StatusCode::kAborted);
  Tensor v;
  bool is_dead;
  EXPECT_EQ(rendezvous.Recv(Key("t"), {}, &v, &is_dead).code(), absl::StatusCode::kAborted);
  EXPECT_EQ(rendezvous.status().code(), absl::StatusCode::kAborted);
}

TEST(LocalRendezvousTest, AbortWithOkStatusBecomesAnError) {
  LocalRendezvous rendezvous;
  rendezvous.StartAbort(absl::OkStatus());
  EXPECT_EQ(rendezvous.status().code(), absl::StatusCode::kInternal);
}

TEST(LocalRendezvousTest, DestroyingWithAWaitingReceiverFailsIt) {
  absl::Status result;
  {
    LocalRendezvous rendezvous;
    rendezvous.RecvAsync(Key("t"), {},
                         [&](const absl::Status& s, const Rendezvous::Args&,
                             const Rendezvous::Args&, const Tensor&, bool) { result = s; });
  }
  EXPECT_EQ(result.code(), absl::StatusCode::kAborted);
}

TEST(LocalRendezvousTest, ManyKeysFromManyThreads) {
  LocalRendezvous rendezvous;
  constexpr int kKeys = 200;
  constexpr int kThreads = 4;
  std::vector<int32_t> received(kKeys, -1);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    // Half the threads send, half receive; each covers every key of its
    // stripe, in opposite orders so both arrival orders happen.
    threads.emplace_back([&, t] {
      const bool sender = t % 2 == 0;
      const int stripe = t / 2;
      for (int n = 0; n < kKeys / 2; ++n) {
        const int k = sender ? stripe * (kKeys / 2) + n : stripe * (kKeys / 2) + kKeys / 2 - 1 - n;
        if (sender) {
          ASSERT_TRUE(
              rendezvous.Send(Key(absl::StrCat("k", k)), {}, Tensor::Scalar<int32_t>(k), false)
                  .ok());
        } else {
          rendezvous.RecvAsync(Key(absl::StrCat("k", k)), {},
                               [&received, k](const absl::Status& s, const Rendezvous::Args&,
                                              const Rendezvous::Args&, const Tensor& v, bool) {
                                 ASSERT_TRUE(s.ok());
                                 received[k] = v.scalar<int32_t>()();
                               });
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int k = 0; k < kKeys; ++k) EXPECT_EQ(received[k], k) << "key " << k;
}

}  // namespace
}  // namespace minitf
