// Rendezvous: where a producer hands a tensor to a consumer it shares no
// graph edge with, matched by a string key (TensorFlow's Rendezvous). The
// _Send kernel of one device partition calls Send, the _Recv kernel of
// another calls RecvAsync; whichever comes first waits for the other.
//
//   const std::string key = Rendezvous::CreateKey(
//       "/job:localhost/replica:0/task:0/device:CPU:0", incarnation,
//       "/job:localhost/replica:0/task:0/device:CPU:1", "edge_7_x");
//   Rendezvous::ParsedKey parsed;
//   MINITF_RETURN_IF_ERROR(Rendezvous::ParseKey(key, &parsed));
//   LocalRendezvous rendezvous;
//   MINITF_RETURN_IF_ERROR(rendezvous.Send(parsed, {}, value, /*is_dead=*/false));
//   Tensor received;
//   bool is_dead;
//   MINITF_RETURN_IF_ERROR(rendezvous.Recv(parsed, {}, &received, &is_dead));
//
// A key reads "src_device;src_incarnation;dst_device;tensor_name;frame:iter"
// with the incarnation as 16 hex digits. Several Sends of one key queue up
// and meet the Recvs of that key in order.
//
// Aborting: StartAbort(status) fails every pending Recv and every later Send
// and Recv with `status` (the first abort's status sticks). A step's
// executors abort their rendezvous on their first error, which is how a
// failure in one partition wakes the _Recv nodes blocked in the others.
//
// Ownership: a rendezvous is owned by whoever runs the step (DirectSession
// keeps one per step) and must outlive every Send, RecvAsync and callback of
// that step. Not reference counted. All methods are thread-safe.
#ifndef MINITF_RUNTIME_RENDEZVOUS_H_
#define MINITF_RUNTIME_RENDEZVOUS_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "platform/mutex.h"
#include "runtime/device_base.h"
#include "runtime/frame_and_iter.h"
#include "runtime/tensor.h"

namespace minitf {

// A copy of `status` (code and message; minitf sets no payloads) that
// shares no storage with it. Statuses handed from one step thread to another
// through a rendezvous or a step's barrier are copied this way: the Debian
// Abseil is built without ThreadSanitizer support, so the sanitizer cannot
// see the reference count of a shared absl::Status and would report its
// release on one thread as a race with a read on another.
absl::Status UnsharedStatus(const absl::Status& status);

class Rendezvous {
 public:
  // What one side of a transfer says about its tensor.
  struct Args {
    // How the device of that side copies to and from the host; null for a
    // device that computes in host memory. Not owned.
    DeviceContext* device_context = nullptr;
    // Where the tensor lives (sender) or should live (receiver).
    AllocatorAttributes alloc_attrs;
  };

  // A key split into its parts. Built by ParseKey; kernels parse their key
  // once, when they are constructed.
  struct ParsedKey {
    std::string src_device;
    uint64_t src_incarnation = 0;
    std::string dst_device;
    std::string edge_name;
    FrameAndIter frame_iter;

    // The key ParseKey read; what the rendezvous matches on.
    const std::string& FullKey() const { return full_key; }
    std::string full_key;
  };

  // Called once per RecvAsync: with the tensor (or `is_dead`) and both
  // sides' Args, or with the abort status (then `val` is empty).
  using DoneCallback =
      std::function<void(const absl::Status& status, const Args& send_args,
                         const Args& recv_args, const Tensor& val, bool is_dead)>;

  virtual ~Rendezvous() = default;

  // "src_device;incarnation in 16 hex digits;dst_device;name;frame_id:iter_id".
  static std::string CreateKey(absl::string_view src_device, uint64_t src_incarnation,
                               absl::string_view dst_device, absl::string_view name,
                               FrameAndIter frame_iter = {});
  // InvalidArgument naming the key when it does not have the five parts of
  // CreateKey's form, or a part is empty or malformed.
  static absl::Status ParseKey(absl::string_view key, ParsedKey* out);

  // Hands `val` (or, when `is_dead`, only its deadness) to the Recv of
  // `key`; never blocks. The waiting receiver's callback, if there is one,
  // runs on this thread before Send returns. The abort status once aborted.
  virtual absl::Status Send(const ParsedKey& key, const Args& send_args, const Tensor& val,
                            bool is_dead) = 0;
  // Calls `done` once the tensor of `key` has been sent (on the sender's
  // thread, or on this one when it already was), or when the rendezvous is
  // aborted.
  virtual void RecvAsync(const ParsedKey& key, const Args& recv_args, DoneCallback done) = 0;
  // Fails every pending and future Recv and Send with `status` (an error;
  // an OK status is turned into an Internal one). Only the first call counts.
  virtual void StartAbort(const absl::Status& status) = 0;

  // RecvAsync, waiting for the result.
  absl::Status Recv(const ParsedKey& key, const Args& recv_args, Tensor* val, bool* is_dead);
};

// The in-memory table of one process: for each key a queue of sent values
// or of waiting receivers (never both). Tensors pass through as they are;
// IntraProcessRendezvous (session/) adds the copies between device memories.
class LocalRendezvous final : public Rendezvous {
 public:
  LocalRendezvous() = default;
  // Fails receivers still waiting (Aborted); by the contract above there
  // should be none.
  ~LocalRendezvous() override;
  LocalRendezvous(const LocalRendezvous&) = delete;
  LocalRendezvous& operator=(const LocalRendezvous&) = delete;

  absl::Status Send(const ParsedKey& key, const Args& send_args, const Tensor& val,
                    bool is_dead) override;
  void RecvAsync(const ParsedKey& key, const Args& recv_args, DoneCallback done) override;
  void StartAbort(const absl::Status& status) override;

  // OK until aborted, then the status of the first StartAbort.
  absl::Status status() const;

 private:
  // A sent value waiting for its receiver, or a receiver waiting for its
  // value.
  struct Item {
    enum class Type { kSend, kRecv };
    Type type = Type::kSend;
    // kSend:
    Tensor value;
    bool is_dead = false;
    Args send_args;
    // kRecv:
    Args recv_args;
    DoneCallback done;
  };
  // Invariant: never empty (an emptied queue is erased), and all its items
  // have the same type.
  using ItemQueue = std::deque<Item>;

  mutable Mutex mu_;
  // Full key -> its queue.
  absl::flat_hash_map<std::string, ItemQueue> table_ ABSL_GUARDED_BY(mu_);
  absl::Status status_ ABSL_GUARDED_BY(mu_);
};

}  // namespace minitf

#endif  // MINITF_RUNTIME_RENDEZVOUS_H_
