#include "session/intra_process_rendezvous.h"

#include <atomic>
#include <cstring>
#include <memory>
#include <vector>

#include "device/cpu_device.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minitf {
namespace {

using ::testing::HasSubstr;

// Copies between "device" and host memory (both really host memory here),
// counting each direction, or failing when told to.
class CountingDeviceContext : public DeviceContext {
 public:
  void CopyCPUTensorToDevice(const Tensor* cpu_tensor, DeviceBase*, Tensor* device_tensor,
                             StatusCallback done) const override {
    ++host_to_device;
    Copy(cpu_tensor, device_tensor, std::move(done));
  }
  void CopyDeviceTensorToCPU(const Tensor* device_tensor, DeviceBase*, Tensor* cpu_tensor,
                             StatusCallback done) const override {
    ++device_to_host;
    Copy(device_tensor, cpu_tensor, std::move(done));
  }

  mutable std::atomic<int> host_to_device{0};
  mutable std::atomic<int> device_to_host{0};
  bool fail = false;

 private:
  void Copy(const Tensor* from, Tensor* to, StatusCallback done) const {
    if (fail) return done(absl::InternalError("the copy engine broke"));
    std::memcpy(to->raw_data(), from->raw_data(), from->TotalBytes());
    done(absl::OkStatus());
  }
};

// A device with memory of its own (as far as the rendezvous can tell).
class FakeAcceleratorDevice : public Device {
 public:
  explicit FakeAcceleratorDevice(int id)
      : Device(Attributes(id), id), pool_("fake_accelerator", 1) {}

  Allocator* GetAllocator(AllocatorAttributes) override { return cpu_allocator(); }
  ThreadPool* intra_op_thread_pool() override { return &pool_; }
  DeviceContext* device_context() override { return &context_; }
  CountingDeviceContext& context() { return context_; }

 private:
  static DeviceAttributes Attributes(int id) {
    DeviceAttributes attrs;
    attrs.name = FullDeviceName("FAKE", id);
    attrs.device_type = "FAKE";
    return attrs;
  }
  ThreadPool pool_;
  CountingDeviceContext context_;
};

class IntraProcessRendezvousTest : public ::testing::Test {
 protected:
  IntraProcessRendezvousTest() {
    std::vector<std::unique_ptr<Device>> devices;
    devices.push_back(std::make_unique<ThreadPoolDevice>(0, 1, cpu_allocator()));
    devices.push_back(std::make_unique<ThreadPoolDevice>(1, 1, cpu_allocator()));
    devices.push_back(std::make_unique<FakeAcceleratorDevice>(0));
    devices.push_back(std::make_unique<FakeAcceleratorDevice>(1));
    mgr_ = std::make_unique<DeviceMgr>(std::move(devices));
  }

  FakeAcceleratorDevice* Fake(int id) {
    return static_cast<FakeAcceleratorDevice*>(*mgr_->LookupDevice(FullDeviceName("FAKE", id)));
  }

  // Sends `value` from `src` to `dst` and returns what the receiver got.
  absl::StatusOr<Tensor> Transfer(const std::string& src, const std::string& dst,
                                  const Tensor& value, Rendezvous::Args send_args = {},
                                  Rendezvous::Args recv_args = {}) {
    IntraProcessRendezvous rendezvous(mgr_.get());
    Rendezvous::ParsedKey key;
    absl::Status s = Rendezvous::ParseKey(Rendezvous::CreateKey(src, 1, dst, "edge_1_x"), &key);
    if (!s.ok()) return s;
    s = rendezvous.Send(key, send_args, value, false);
    if (!s.ok()) return s;
    Tensor out;
    bool is_dead;
    s = rendezvous.Recv(key, recv_args, &out, &is_dead);
    if (!s.ok()) return s;
    return out;
  }

  std::unique_ptr<DeviceMgr> mgr_;
  const std::string cpu0_ = FullDeviceName("CPU", 0);
  const std::string cpu1_ = FullDeviceName("CPU", 1);
  const std::string fake0_ = FullDeviceName("FAKE", 0);
  const std::string fake1_ = FullDeviceName("FAKE", 1);
};

TEST_F(IntraProcessRendezvousTest, CpuToCpuPassesTheTensorThrough) {
  Tensor value = Tensor::FromVector<float>({1, 2, 3});
  absl::StatusOr<Tensor> out = Transfer(cpu0_, cpu1_, value);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(out->SharesBufferWith(value));
}

TEST_F(IntraProcessRendezvousTest, HostToDeviceCopiesThroughTheReceiversContext) {
  Tensor value = Tensor::FromVector<float>({1, 2, 3});
  absl::StatusOr<Tensor> out = Transfer(cpu0_, fake0_, value);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE(out->SharesBufferWith(value));
  EXPECT_EQ(out->flat<float>()(2), 3.0f);
  EXPECT_EQ(Fake(0)->context().host_to_device.load(), 1);
  EXPECT_EQ(Fake(0)->context().device_to_host.load(), 0);
}

TEST_F(IntraProcessRendezvousTest, DeviceToHostCopiesThroughTheSendersContext) {
  Tensor value = Tensor::FromVector<int32_t>({4, 5});
  absl::StatusOr<Tensor> out = Transfer(fake1_, cpu0_, value);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE(out->SharesBufferWith(value));
  EXPECT_EQ(out->flat<int32_t>()(1), 5);
  EXPECT_EQ(Fake(1)->context().device_to_host.load(), 1);
}

TEST_F(IntraProcessRendezvousTest, DeviceToOtherDeviceStagesThroughHost) {
  Tensor value = Tensor::FromVector<float>({7, 8});
  absl::StatusOr<Tensor> out = Transfer(fake0_, fake1_, value);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->flat<float>()(0), 7.0f);
  EXPECT_EQ(Fake(0)->context().device_to_host.load(), 1);
  EXPECT_EQ(Fake(1)->context().host_to_device.load(), 1);
}

TEST_F(IntraProcessRendezvousTest, SameDeviceAndHostMemoryArgsPassThrough) {
  Tensor value = Tensor::FromVector<float>({1});
  absl::StatusOr<Tensor> same = Transfer(fake0_, fake0_, value);
  ASSERT_TRUE(same.ok());
  EXPECT_TRUE(same->SharesBufferWith(value));
  Rendezvous::Args on_host;
  on_host.alloc_attrs.on_host = true;
  absl::StatusOr<Tensor> host = Transfer(fake0_, cpu0_, value, on_host);
  ASSERT_TRUE(host.ok());
  EXPECT_TRUE(host->SharesBufferWith(value));
  EXPECT_EQ(Fake(0)->context().device_to_host.load(), 0);
}

TEST_F(IntraProcessRendezvousTest, DeadTensorsAreNotCopied) {
  IntraProcessRendezvous rendezvous(mgr_.get());
  Rendezvous::ParsedKey key;
  ASSERT_TRUE(
      Rendezvous::ParseKey(Rendezvous::CreateKey(cpu0_, 1, fake0_, "edge_1_x"), &key).ok());
  ASSERT_TRUE(rendezvous.Send(key, {}, Tensor(), true).ok());
  Tensor out;
  bool is_dead = false;
  ASSERT_TRUE(rendezvous.Recv(key, {}, &out, &is_dead).ok());
  EXPECT_TRUE(is_dead);
  EXPECT_EQ(Fake(0)->context().host_to_device.load(), 0);
}

TEST_F(IntraProcessRendezvousTest, CopyErrorsNameTheTensorAndDevices) {
  Fake(0)->context().fail = true;
  absl::StatusOr<Tensor> out = Transfer(cpu0_, fake0_, Tensor::FromVector<float>({1}));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("edge_1_x"));
  EXPECT_THAT(std::string(out.status().message()), HasSubstr(fake0_));
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("copy engine broke"));
}

TEST_F(IntraProcessRendezvousTest, UnknownDeviceIsNotFound) {
  absl::StatusOr<Tensor> out =
      Transfer(fake0_, FullDeviceName("FAKE", 9), Tensor::FromVector<float>({1}));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("FAKE:9"));
}

TEST_F(IntraProcessRendezvousTest, AbortReachesWaitingReceivers) {
  IntraProcessRendezvous rendezvous(mgr_.get());
  Rendezvous::ParsedKey key;
  ASSERT_TRUE(
      Rendezvous::ParseKey(Rendezvous::CreateKey(cpu0_, 1, cpu1_, "edge_1_x"), &key).ok());
  absl::Status result;
  rendezvous.RecvAsync(key, {},
                       [&](const absl::Status& s, const Rendezvous::Args&,
                           const Rendezvous::Args&, const Tensor&, bool) { result = s; });
  rendezvous.StartAbort(absl::AbortedError("stop"));
  EXPECT_EQ(result.code(), absl::StatusCode::kAborted);
  EXPECT_EQ(rendezvous.status().code(), absl::StatusCode::kAborted);
}

}  // namespace
}  // namespace minitf
