// File: test/profile/namespace_targets_test.cc
#include "controller/profile/namespace_targets.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/profile/profile_test_util.h"

namespace gpuprofile::profile {
namespace namespace_targets_test {
namespace {

using ::gpuprofile::profile::testing::Ns;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(TargetNamespacesTest, NamedNamespacesAreKeptUnlessTerminatingOrKnownMissing) {
  const std::vector<meta::Namespace> namespaces = {Ns("ml"), Ns("old", {}, /*terminating=*/true)};
  api::ClaimTemplateSpec spec;
  spec.namespaces = {"ml", "old", "later", "ml"};
  EXPECT_THAT(TargetNamespaces(spec, namespaces, /*namespaces_complete=*/false),
              ElementsAre("later", "ml"));
  EXPECT_THAT(TargetNamespaces(spec, namespaces, /*namespaces_complete=*/true), ElementsAre("ml"));
}

TEST(TargetNamespacesTest, ANamespaceGivenTwiceIsReadAsTheLastCopy) {
  api::ClaimTemplateSpec spec;
  spec.namespaces = {"ml"};
  EXPECT_THAT(TargetNamespaces(spec, {Ns("ml", {}, true), Ns("ml")}, true), ElementsAre("ml"));
  EXPECT_THAT(TargetNamespaces(spec, {Ns("ml"), Ns("ml", {}, true)}, true), IsEmpty());
}

TEST(TargetNamespacesTest, TheSelectorAddsMatchingNamespacesSortedOnce) {
  const std::vector<meta::Namespace> namespaces = {
      Ns("b", {{"team", "x"}}), Ns("a", {{"team", "x"}}), Ns("c", {{"team", "y"}}),
      Ns("d", {{"team", "x"}}, /*terminating=*/true)};
  api::ClaimTemplateSpec spec;
  spec.namespaces = {"b", "c"};
  spec.namespace_selector = meta::LabelSelector{};
  spec.namespace_selector->match_labels = {{"team", "x"}};
  EXPECT_THAT(TargetNamespaces(spec, namespaces, true), ElementsAre("a", "b", "c"));
  spec.namespace_selector = meta::LabelSelector{};  // {} selects every namespace
  spec.namespaces.clear();
  EXPECT_THAT(TargetNamespaces(spec, namespaces, true), ElementsAre("a", "b", "c"));
  spec.namespace_selector.reset();  // absent selects none
  EXPECT_THAT(TargetNamespaces(spec, namespaces, true), IsEmpty());
}

}  // namespace
}  // namespace namespace_targets_test
}  // namespace gpuprofile::profile
