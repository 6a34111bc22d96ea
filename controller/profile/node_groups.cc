// File: controller/profile/node_groups.cc
#include "controller/profile/node_groups.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "controller/core/quantity.h"
#include "controller/dra/device_health.h"
#include "controller/profile/driver_terms.h"

namespace gpuprofile::profile {
namespace {

// The published text of a string or version attribute entry; empty if absent or of another
// type. A view of the device's storage.
absl::string_view EntryText(const dra::Device& device, uint64_t token) {
  if (token == 0) return "";
  const dra::AttributeValue value = device.AttributeEntryValue(static_cast<uint32_t>(token - 1));
  using Kind = dra::AttributeValue::Kind;
  if (value.kind() != Kind::kString && value.kind() != Kind::kVersion) return "";
  return value.string_value();
}

std::string Slug(absl::string_view text) {
  std::string out;
  for (char c : text) {
    const char lower = absl::ascii_tolower(static_cast<unsigned char>(c));
    const bool keep = (lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9') ||
                      lower == '.' || lower == '-';
    const char next = keep ? lower : '-';
    // No runs of separators: "NVIDIA A100 - 40GB" -> "nvidia-a100-40gb".
    if ((next == '-' || next == '.') && !out.empty() && (out.back() == '-' || out.back() == '.')) {
      if (next == '.') out.back() = '.';
      continue;
    }
    out.push_back(next);
  }
  // Names must start and end with an alphanumeric character.
  const auto alnum = [](char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)); };
  while (!out.empty() && !alnum(out.back())) out.pop_back();
  size_t start = 0;
  while (start < out.size() && !alnum(out[start])) ++start;
  return out.substr(start);
}

std::string TrimToLength(std::string name, size_t length) {
  if (name.size() > length) name.resize(length);
  while (!name.empty() && (name.back() == '-' || name.back() == '.')) name.pop_back();
  return name;
}

}  // namespace

SignatureView SignatureViewOf(const dra::Device& device) {
  SignatureReader reader;
  std::vector<uint64_t> tokens;
  reader.Tokens(device, &tokens);
  return reader.View(device, tokens);
}

std::vector<std::string> SignatureIds(const std::string& driver) {
  if (!IsKnownDriver(driver)) {
    // Drivers without a table: the attribute names most drivers share (the product is the
    // first of productName and model that reads as text).
    return {"type", "productName", "model", "driverVersion"};
  }
  const DriverTerms& terms = TermsForDriver(driver);
  return {terms.type_attribute,
          terms.product_attribute,
          terms.driver_version_attribute,
          terms.architecture_attribute,
          terms.compute_capability_attribute,
          terms.cuda_driver_version_attribute};
}

std::vector<std::string> SignatureIdsOfAnyDriver() {
  std::set<std::string> ids;
  // "" is not a known driver: the ids of drivers without a table.
  for (const std::string& id : SignatureIds("")) ids.insert(id);
  for (const std::string& driver : KnownDrivers()) {
    for (std::string& id : SignatureIds(driver)) {
      if (!id.empty()) ids.insert(std::move(id));
    }
  }
  return {ids.begin(), ids.end()};
}

void SignatureReader::UseDriver(absl::string_view driver) {
  driver_ = std::string(driver);
  known_driver_ = IsKnownDriver(driver_);
  memory_capacity_ = TermsForDriver(driver_).memory_capacity;
  ids_ = SignatureIds(driver_);
  qualified_ids_.clear();
  for (const std::string& id : ids_) {
    qualified_ids_.push_back(id.empty() ? "" : absl::StrCat(driver_, "/", id));
  }
  id_hints_.assign(ids_.size(), {});
  qualified_hints_.assign(ids_.size(), {});
}

void SignatureReader::Tokens(const dra::Device& device, std::vector<uint64_t>* tokens) {
  if (ids_.empty() || device.driver() != driver_) UseDriver(device.driver());
  tokens->assign(ids_.size() + 1, 0);
  for (size_t i = 0; i < ids_.size(); ++i) {
    if (ids_[i].empty()) continue;
    // An id in the driver's domain, published unqualified or qualified.
    std::optional<uint32_t> entry = device.FindAttributeEntry(ids_[i], &id_hints_[i]);
    if (!entry) entry = device.FindAttributeEntry(qualified_ids_[i], &qualified_hints_[i]);
    if (entry) (*tokens)[i] = uint64_t{*entry} + 1;
  }
  tokens->back() = reinterpret_cast<uintptr_t>(device.FindCapacity(memory_capacity_));
}

SignatureView SignatureReader::View(const dra::Device& device,
                                    const std::vector<uint64_t>& tokens) const {
  SignatureView s;
  s.driver = device.driver();
  s.device_type = EntryText(device, tokens[0]);
  if (known_driver_) {
    s.product = EntryText(device, tokens[1]);
    s.driver_version = EntryText(device, tokens[2]);
    s.architecture = EntryText(device, tokens[3]);
    s.compute_capability = EntryText(device, tokens[4]);
    s.cuda_driver_version = EntryText(device, tokens[5]);
  } else {
    s.product = EntryText(device, tokens[1]);
    if (s.product.empty()) s.product = EntryText(device, tokens[2]);
    s.driver_version = EntryText(device, tokens[3]);
  }
  s.memory = reinterpret_cast<const Quantity*>(static_cast<uintptr_t>(tokens.back()));
  return s;
}

bool SignatureView::operator==(const SignatureView& other) const {
  // The fields that tell node types apart first, the memory (dearest to compare) last.
  return product == other.product && driver_version == other.driver_version &&
         device_type == other.device_type && driver == other.driver &&
         architecture == other.architecture && compute_capability == other.compute_capability &&
         cuda_driver_version == other.cuda_driver_version &&
         Quantity::PrintSame(memory, other.memory);
}

api::DeviceSignature SignatureOf(const SignatureView& view) {
  api::DeviceSignature s;
  s.driver = std::string(view.driver);
  s.device_type = std::string(view.device_type);
  s.product = std::string(view.product);
  s.driver_version = std::string(view.driver_version);
  s.architecture = std::string(view.architecture);
  s.compute_capability = std::string(view.compute_capability);
  s.cuda_driver_version = std::string(view.cuda_driver_version);
  if (view.memory != nullptr) s.memory = view.memory->ToString();
  return s;
}

api::DeviceSignature SignatureOf(const dra::Device& device) {
  return SignatureOf(SignatureViewOf(device));
}

std::string BaseNodeGroupName(const api::DeviceSignature& s) {
  std::string base =
      s.product.empty() ? Slug(absl::StrCat(s.driver, "-", s.device_type)) : Slug(s.product);
  if (base.empty()) base = "device";
  if (!s.driver_version.empty()) base = absl::StrCat(base, "-", Slug(s.driver_version));
  return base;
}

std::string SignatureHash(const api::DeviceSignature& s) {
  uint32_t hash = 2166136261u;
  for (const std::string* field :
       {&s.driver, &s.device_type, &s.product, &s.memory, &s.driver_version, &s.architecture,
        &s.compute_capability, &s.cuda_driver_version}) {
    for (char c : *field) {
      hash ^= static_cast<unsigned char>(c);
      hash *= 16777619u;
    }
    hash ^= 0xffu;  // field separator, so ("ab","") and ("a","b") differ
    hash *= 16777619u;
  }
  return absl::StrFormat("%08x", hash);
}

namespace {

// The inventory's incomplete pools by (driver, pool); keys view the inventory's pool infos.
using IncompletePools =
    std::map<std::pair<absl::string_view, absl::string_view>, const dra::PoolInfo*>;

IncompletePools IncompletePoolsOf(const dra::Inventory& inventory) {
  IncompletePools incomplete;
  for (const dra::PoolInfo& pool : inventory.pools()) {
    if (pool.incomplete) incomplete[{pool.driver, pool.name}] = &pool;
  }
  return incomplete;
}

// The devices of one signature (one future group), as counted in the inventory's order.
struct SignatureTally {
  uint32_t signature = 0;  // memo id
  int64_t nodes = 0;
  uint32_t last_node = dra::Inventory::kNoNode;
  std::vector<std::string> node_names;  // the first kMaxNodeNamesInStatus, sorted
  int64_t devices = 0;
  int64_t unhealthy = 0;                                     // dra::HealthOf says kUnhealthy
  std::set<std::pair<std::string, std::string>> incomplete;  // (driver, pool)
};

struct SignatureTallies {
  std::vector<SignatureTally> of_signature;  // in order of first appearance
  std::vector<uint32_t> of_device;           // per device, its tally's index
};

// One pass over the devices, each counted under its signature (memo id in `signature_ids`).
SignatureTallies TallySignatures(const dra::Inventory& inventory,
                                 const std::vector<uint32_t>& signature_ids,
                                 const IncompletePools& incomplete) {
  const std::vector<dra::Device>& devices = inventory.devices();
  const std::vector<uint32_t>& node_index = inventory.node_index();
  SignatureTallies out;
  out.of_device.resize(devices.size());
  std::map<uint32_t, size_t> index_of;  // memo signature id -> tally
  for (size_t d = 0; d < devices.size(); ++d) {
    auto [it, inserted] = index_of.try_emplace(signature_ids[d], out.of_signature.size());
    if (inserted) {
      out.of_signature.emplace_back();
      out.of_signature.back().signature = signature_ids[d];
    }
    SignatureTally& acc = out.of_signature[it->second];
    out.of_device[d] = static_cast<uint32_t>(it->second);
    ++acc.devices;
    if (devices[d].has_taints() && dra::HealthOf(devices[d]) == dra::DeviceHealth::kUnhealthy) {
      ++acc.unhealthy;
    }
    // Node numbers ascend with the devices, so a node not seen last is a node not seen yet.
    const uint32_t node = node_index[d];
    if (node != dra::Inventory::kNoNode && node != acc.last_node) {
      acc.last_node = node;
      ++acc.nodes;
      if (acc.node_names.size() < static_cast<size_t>(api::kMaxNodeNamesInStatus)) {
        acc.node_names.emplace_back(devices[d].node());
      }
    }
    if (!incomplete.empty()) {
      auto pool = incomplete.find({devices[d].driver(), devices[d].pool()});
      if (pool != incomplete.end()) {
        acc.incomplete.insert({pool->second->driver, pool->second->name});
      }
    }
  }
  return out;
}

// One group per tally (node names moved out of it), in the tallies' order. Base names that
// collide get the hash suffix, as do names that are too long.
std::vector<api::GpuNodeGroup> NameGroups(std::vector<SignatureTally>* tallies,
                                          const FleetMemo& memo,
                                          const IncompletePools& incomplete) {
  std::map<std::string, int> base_count;
  for (const SignatureTally& acc : *tallies) {
    ++base_count[BaseNodeGroupName(memo.Signature(acc.signature))];
  }
  std::vector<api::GpuNodeGroup> groups(tallies->size());
  for (size_t i = 0; i < tallies->size(); ++i) {
    SignatureTally& acc = (*tallies)[i];
    const api::DeviceSignature& signature = memo.Signature(acc.signature);
    std::string name = BaseNodeGroupName(signature);
    if (base_count[name] > 1 || name.size() > kMaxNodeGroupNameLength) {
      const std::string hash = SignatureHash(signature);
      name = absl::StrCat(TrimToLength(name, kMaxNodeGroupNameLength - hash.size() - 1), "-", hash);
    }
    api::GpuNodeGroup& group = groups[i];
    group.metadata.name = std::move(name);
    group.status.signature = signature;
    group.status.devices = acc.devices;
    group.status.unhealthy_devices = acc.unhealthy;
    group.status.node_count = acc.nodes;
    group.status.nodes = std::move(acc.node_names);
    for (const auto& [driver, pool_name] : acc.incomplete) {
      const dra::PoolInfo& pool = *incomplete.at({driver, pool_name});
      group.status.incomplete_pools.push_back({pool.driver, pool.name, pool.generation,
                                               pool.slice_count_seen, pool.resource_slice_count});
    }
  }
  return groups;
}

// The groups sorted by name, and each device's group index (`group_of_device` indexes the
// unsorted groups) remapped.
NodeGroups SortGroups(std::vector<api::GpuNodeGroup> groups,
                      const std::vector<uint32_t>& group_of_device) {
  std::vector<uint32_t> order(groups.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return groups[a].metadata.name < groups[b].metadata.name;
  });
  std::vector<uint32_t> position(groups.size());
  NodeGroups out;
  out.groups.reserve(groups.size());
  for (uint32_t i = 0; i < order.size(); ++i) {
    position[order[i]] = i;
    out.groups.push_back(std::move(groups[order[i]]));
  }
  out.group_of_device.resize(group_of_device.size());
  for (size_t d = 0; d < group_of_device.size(); ++d) {
    out.group_of_device[d] = position[group_of_device[d]];
  }
  return out;
}

}  // namespace

NodeGroups BuildNodeGroups(const dra::Inventory& inventory, FleetMemo* memo) {
  FleetMemo local;
  if (memo == nullptr) memo = &local;
  const IncompletePools incomplete = IncompletePoolsOf(inventory);
  const std::vector<uint32_t> signature_ids = memo->SignatureIds(inventory.devices());
  SignatureTallies tallies = TallySignatures(inventory, signature_ids, incomplete);
  return SortGroups(NameGroups(&tallies.of_signature, *memo, incomplete), tallies.of_device);
}

void MarkDevicePluginNodes(absl::Span<const meta::NodeGpus> nodes, const dra::Inventory& inventory,
                           NodeGroups* groups) {
  absl::flat_hash_set<absl::string_view> plugin_nodes;
  for (const meta::NodeGpus& node : nodes) {
    if (node.device_plugin_devices > 0) plugin_nodes.insert(node.name);
  }
  std::vector<std::set<std::string>> twice(groups->groups.size());
  if (!plugin_nodes.empty()) {
    const std::vector<dra::Device>& devices = inventory.devices();
    for (size_t d = 0; d < devices.size() && d < groups->group_of_device.size(); ++d) {
      const absl::string_view node = devices[d].node();
      if (!node.empty() && plugin_nodes.contains(node)) {
        twice[groups->group_of_device[d]].emplace(node);
      }
    }
  }
  for (size_t g = 0; g < groups->groups.size(); ++g) {
    api::GpuNodeGroupStatus& status = groups->groups[g].status;
    status.device_plugin_nodes = static_cast<int64_t>(twice[g].size());
    if (twice[g].empty()) {
      status.offered_by = api::kOfferedByDra;
      continue;
    }
    status.offered_by = api::kOfferedByBoth;
    for (const std::string& node : twice[g]) {
      if (status.offered_twice.size() >= static_cast<size_t>(api::kMaxNodeNamesInStatus)) break;
      status.offered_twice.push_back(node);
    }
    meta::Condition condition;
    condition.type = api::kConditionOfferedTwice;
    condition.status = meta::ConditionStatus::kTrue;
    condition.reason = api::kReasonDevicePluginAndDra;
    condition.message = absl::StrCat(
        twice[g].size(), twice[g].size() == 1 ? " node offers" : " nodes offer",
        " these GPUs through both the device plugin (", meta::kDevicePluginGpuResource,
        " in its allocatable) and DRA (ResourceSlices), which would hand out the same GPUs twice: ",
        absl::StrJoin(status.offered_twice, ", "),
        twice[g].size() > status.offered_twice.size() ? ", ..." : "",
        ". Remove the device plugin from these nodes, or the DRA driver, before scheduling "
        "pods on them.");
    status.conditions.push_back(std::move(condition));
  }
}

std::vector<api::GpuNodeGroup> DevicePluginGroups(absl::Span<const meta::NodeGpus> nodes,
                                                  const dra::Inventory& inventory,
                                                  const std::vector<api::GpuNodeGroup>& taken) {
  // Without a node the device plugin serves there is nothing to group, and the operator asks on
  // every computation: the pass over the fleet's devices below is for the nodes that have some.
  const bool any_plugin_node =
      std::any_of(nodes.begin(), nodes.end(),
                  [](const meta::NodeGpus& node) { return node.device_plugin_devices > 0; });
  if (!any_plugin_node) return {};
  absl::flat_hash_set<absl::string_view> dra_nodes;
  for (const dra::Device& device : inventory.devices()) {
    if (!device.node().empty()) dra_nodes.insert(device.node());
  }
  // (product, memory) -> the nodes, sorted by name.
  std::map<std::pair<std::string, std::string>, std::vector<const meta::NodeGpus*>> by_gpu;
  for (const meta::NodeGpus& node : nodes) {
    if (node.device_plugin_devices <= 0 || dra_nodes.contains(node.name)) continue;
    by_gpu[{node.product, node.memory_mib}].push_back(&node);
  }
  std::set<std::string> names;
  for (const api::GpuNodeGroup& group : taken) names.insert(group.metadata.name);
  std::vector<api::GpuNodeGroup> out;
  for (auto& [key, members] : by_gpu) {
    std::sort(members.begin(), members.end(),
              [](const meta::NodeGpus* a, const meta::NodeGpus* b) { return a->name < b->name; });
    api::GpuNodeGroup group;
    api::DeviceSignature& signature = group.status.signature;
    signature.device_type = "gpu";
    signature.product = key.first;
    if (!key.second.empty()) {
      absl::StatusOr<Quantity> memory = Quantity::Parse(absl::StrCat(key.second, "Mi"));
      signature.memory = memory.ok() ? memory->ToString() : key.second;
    }
    std::string name =
        absl::StrCat(Slug(key.first.empty() ? "nvidia-gpu" : key.first), "-device-plugin");
    if (names.count(name) != 0 || name.size() > kMaxNodeGroupNameLength) {
      const std::string hash = SignatureHash(signature);
      name = absl::StrCat(TrimToLength(name, kMaxNodeGroupNameLength - hash.size() - 1), "-", hash);
    }
    names.insert(name);
    group.metadata.name = std::move(name);
    group.status.node_count = static_cast<int64_t>(members.size());
    for (const meta::NodeGpus* node : members) {
      group.status.devices += node->device_plugin_devices;
      if (group.status.nodes.size() < static_cast<size_t>(api::kMaxNodeNamesInStatus)) {
        group.status.nodes.push_back(node->name);
      }
    }
    group.status.offered_by = api::kOfferedByDevicePlugin;
    group.status.device_plugin_nodes = group.status.node_count;
    out.push_back(std::move(group));
  }
  std::sort(out.begin(), out.end(), [](const api::GpuNodeGroup& a, const api::GpuNodeGroup& b) {
    return a.metadata.name < b.metadata.name;
  });
  return out;
}

}  // namespace gpuprofile::profile
