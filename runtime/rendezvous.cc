#include "runtime/rendezvous.h"

#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace minitf {

namespace {

absl::Status BadKey(absl::string_view key, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid rendezvous key '", key, "': ", why));
}

// "0123abcd" -> value; at most 16 hex digits.
bool ParseHex(absl::string_view text, uint64_t* value) {
  if (text.empty() || text.size() > 16) return false;
  *value = 0;
  for (char c : text) {
    int digit;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else {
      return false;
    }
    *value = (*value << 4) | static_cast<uint64_t>(digit);
  }
  return true;
}

}  // namespace

absl::Status UnsharedStatus(const absl::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(status.code(), std::string(status.message()));
}

std::string Rendezvous::CreateKey(absl::string_view src_device, uint64_t src_incarnation,
                                  absl::string_view dst_device, absl::string_view name,
                                  FrameAndIter frame_iter) {
  return absl::StrCat(src_device, ";", absl::StrFormat("%016x", src_incarnation), ";",
                      dst_device, ";", name, ";", frame_iter.frame_id, ":",
                      frame_iter.iter_id);
}

absl::Status Rendezvous::ParseKey(absl::string_view key, ParsedKey* out) {
  std::vector<absl::string_view> parts = absl::StrSplit(key, ';');
  if (parts.size() != 5) {
    return BadKey(key, absl::StrCat("expected 5 parts separated by ';', got ", parts.size()));
  }
  if (parts[0].empty()) return BadKey(key, "the source device is empty");
  if (parts[2].empty()) return BadKey(key, "the destination device is empty");
  if (parts[3].empty()) return BadKey(key, "the tensor name is empty");
  uint64_t incarnation = 0;
  if (!ParseHex(parts[1], &incarnation)) {
    return BadKey(key, absl::StrCat("the incarnation '", parts[1],
                                    "' is not a hexadecimal number of at most 16 digits"));
  }
  std::vector<absl::string_view> frame_iter = absl::StrSplit(parts[4], ':');
  FrameAndIter fi;
  if (frame_iter.size() != 2 || !absl::SimpleAtoi(frame_iter[0], &fi.frame_id) ||
      !absl::SimpleAtoi(frame_iter[1], &fi.iter_id) || fi.iter_id < 0) {
    return BadKey(key, absl::StrCat("the frame and iteration '", parts[4],
                                    "' are not of the form FRAME:ITER"));
  }
  out->src_device = std::string(parts[0]);
  out->src_incarnation = incarnation;
  out->dst_device = std::string(parts[2]);
  out->edge_name = std::string(parts[3]);
  out->frame_iter = fi;
  out->full_key = std::string(key);
  return absl::OkStatus();
}

absl::Status Rendezvous::Recv(const ParsedKey& key, const Args& recv_args, Tensor* val,
                              bool* is_dead) {
  Notification done;
  absl::Status status;
  RecvAsync(key, recv_args,
            [&](const absl::Status& s, const Args&, const Args&, const Tensor& v, bool dead) {
              status = UnsharedStatus(s);
              *val = v;
              *is_dead = dead;
              done.Notify();
            });
  done.WaitForNotification();
  return status;
}

LocalRendezvous::~LocalRendezvous() {
  {
    MutexLock lock(&mu_);
    if (table_.empty()) return;
  }
  StartAbort(absl::AbortedError("the rendezvous was destroyed with receivers waiting"));
}

absl::Status LocalRendezvous::Send(const ParsedKey& key, const Args& send_args,
                                   const Tensor& val, bool is_dead) {
  Item waiter;
  {
    MutexLock lock(&mu_);
    if (!status_.ok()) return UnsharedStatus(status_);
    auto it = table_.find(key.FullKey());
    if (it == table_.end() || it->second.front().type == Item::Type::kSend) {
      Item sent;
      sent.type = Item::Type::kSend;
      sent.value = val;
      sent.is_dead = is_dead;
      sent.send_args = send_args;
      table_[key.FullKey()].push_back(std::move(sent));
      return absl::OkStatus();
    }
    waiter = std::move(it->second.front());
    it->second.pop_front();
    if (it->second.empty()) table_.erase(it);
  }
  // Outside the lock: the receiver's callback may run the rest of its step.
  // `this` is not touched after this call (the step may end inside it).
  waiter.done(absl::OkStatus(), send_args, waiter.recv_args, val, is_dead);
  return absl::OkStatus();
}

void LocalRendezvous::RecvAsync(const ParsedKey& key, const Args& recv_args,
                                DoneCallback done) {
  Item sent;
  absl::Status aborted;
  {
    MutexLock lock(&mu_);
    aborted = UnsharedStatus(status_);
    if (aborted.ok()) {
      auto it = table_.find(key.FullKey());
      if (it == table_.end() || it->second.front().type == Item::Type::kRecv) {
        Item waiter;
        waiter.type = Item::Type::kRecv;
        waiter.recv_args = recv_args;
        waiter.done = std::move(done);
        table_[key.FullKey()].push_back(std::move(waiter));
        return;
      }
      sent = std::move(it->second.front());
      it->second.pop_front();
      if (it->second.empty()) table_.erase(it);
    }
  }
  if (!aborted.ok()) {
    done(aborted, Args(), recv_args, Tensor(), false);
    return;
  }
  done(absl::OkStatus(), sent.send_args, recv_args, sent.value, sent.is_dead);
}

void LocalRendezvous::StartAbort(const absl::Status& status) {
  const absl::Status abort_status =
      status.ok() ? absl::InternalError("StartAbort was called with an OK status") : status;
  std::vector<Item> waiters;
  {
    MutexLock lock(&mu_);
    if (!status_.ok()) return;
    status_ = UnsharedStatus(abort_status);
    for (auto& [key, queue] : table_) {
      for (Item& item : queue) {
        if (item.type == Item::Type::kRecv) waiters.push_back(std::move(item));
      }
    }
    table_.clear();
  }
  for (Item& waiter : waiters) {
    waiter.done(UnsharedStatus(abort_status), Args(), waiter.recv_args, Tensor(), false);
  }
}

absl::Status LocalRendezvous::status() const {
  MutexLock lock(&mu_);
  return UnsharedStatus(status_);
}

}  // namespace minitf
