// File: test/core/names_test.cc
#include "controller/core/names.h"

#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/testing/status_matchers.h"

namespace gpuprofile {
namespace names_test {
namespace {

using ::testing::HasSubstr;

struct Case {
  std::string value;
  bool ok;
  std::string message;  // a substring of the error when !ok
};

void Check(absl::Status (*fn)(absl::string_view), const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    absl::Status status = fn(c.value);
    if (c.ok) {
      EXPECT_OK(status) << "value: \"" << c.value << "\"";
    } else {
      EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument)
          << "value: \"" << c.value << "\"";
      EXPECT_THAT(std::string(status.message()), HasSubstr(c.message))
          << "value: \"" << c.value << "\"";
    }
  }
}

TEST(ValidationTest, DnsLabel) {
  Check(IsDnsLabel, {{"gpu", true, ""},
                     {"a100-40gb", true, ""},
                     {"0", true, ""},
                     {std::string(63, 'a'), true, ""},
                     {std::string(64, 'a'), false, "must be no more than 63 characters"},
                     {"", false,
                      "a lowercase RFC 1123 label must consist of lower case alphanumeric "
                      "characters or '-', and must start and end with an alphanumeric character "
                      "(e.g. 'my-name',  or '123-abc', regex used for validation is "
                      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"},
                     {"Large", false, "a lowercase RFC 1123 label"},
                     {"-a", false, "must start and end with an alphanumeric character"},
                     {"a-", false, "must start and end with an alphanumeric character"},
                     {"a_b", false, "a lowercase RFC 1123 label"},
                     {"gpu.0", false, "must not contain dots"}});
}

TEST(ValidationTest, DnsSubdomain) {
  Check(IsDnsSubdomain, {{"gpu.nvidia.com", true, ""},
                         {"large-memory", true, ""},
                         {std::string(253, 'a'), true, ""},
                         {std::string(254, 'a'), false, "must be no more than 253 characters"},
                         {"", false,
                          "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                          "characters, '-' or '.', and must start and end with an alphanumeric "
                          "character (e.g. 'example.com', regex used for validation is"},
                         {"a..b", false, "RFC 1123 subdomain"},
                         {"Gpu.nvidia.com", false, "RFC 1123 subdomain"},
                         {"a.-b", false, "RFC 1123 subdomain"}});
}

TEST(ValidationTest, QualifiedName) {
  Check(IsQualifiedName,
        {{"app", true, ""},
         {"MyName", true, ""},
         {"my.name_x-1", true, ""},
         {"app.kubernetes.io/managed-by", true, ""},
         {"gpuprofile.io/profile", true, ""},
         {std::string(63, 'a'), true, ""},
         {std::string(64, 'a'), false, "name part must be no more than 63 characters"},
         {"", false, "name part must be non-empty"},
         {"-app", false,
          "name part must consist of alphanumeric characters, '-', '_' or '.', "
          "and must start and end with an alphanumeric character"},
         {"/app", false, "prefix part must be non-empty"},
         {"Example.com/app", false, "prefix part a lowercase RFC 1123 subdomain"},
         {"example.com/", false, "name part must be non-empty"},
         {"a/b/c", false, "a qualified name must consist of alphanumeric characters"}});
}

TEST(ValidationTest, LabelValue) {
  Check(IsLabelValue, {{"", true, ""},
                       {"enabled", true, ""},
                       {"My_Value.1", true, ""},
                       {std::string(63, 'v'), true, ""},
                       {std::string(64, 'v'), false, "must be no more than 63 characters"},
                       {"-x", false,
                        "a valid label must be an empty string or consist of alphanumeric "
                        "characters, '-', '_' or '.', and must start and end with an alphanumeric "
                        "character"},
                       {"a b", false, "a valid label must be an empty string"},
                       {"a/b", false, "a valid label must be an empty string"}});
}

TEST(ValidationTest, CIdentifier) {
  Check(IsCIdentifier, {{"memory", true, ""},
                        {"_x9", true, ""},
                        {"9x", false,
                         "a valid C identifier must start with alphabetic character "
                         "or '_', followed by a string of alphanumeric characters "
                         "or '_'"},
                        {"pcie-root", false, "a valid C identifier"},
                        {"", false, "a valid C identifier"}});
}

TEST(ValidationTest, DraDriverName) {
  Check(IsDraDriverName, {{"gpu.nvidia.com", true, ""},
                          {"Gpu.Example.COM", true, ""},  // checked lower-cased, as for CSI drivers
                          {std::string(63, 'd'), true, ""},
                          {std::string(64, 'd'), false, "must be no more than 63 characters"},
                          {"", false, "must be non-empty"},
                          {"gpu_nvidia", false, "a lowercase RFC 1123 subdomain"}});
}

TEST(ValidationTest, DraAttributeName) {
  const std::string id32(32, 'x');
  const std::string domain63 = std::string(59, 'd') + ".com";
  ASSERT_EQ(domain63.size(), 63u);
  Check(IsDraAttributeName,
        {{"productName", true, ""},
         {"_private", true, ""},
         {id32, true, ""},
         {"resource.kubernetes.io/pcieRoot", true, ""},
         {domain63 + "/" + id32, true, ""},
         {"", false, "name required"},
         {id32 + "x", false, "must be no more than 32 characters"},
         {"pcie-root", false, "a valid C identifier must start with alphabetic character"},
         {"9lives", false, "a valid C identifier"},
         {"d" + domain63 + "/x", false, "domain part must be no more than 63 characters"},
         {"gpu_x.com/x", false, "domain part a lowercase RFC 1123 subdomain"},
         {"/x", false, "the domain must not be empty"},
         {"gpu.nvidia.com/", false, "the name must not be empty"},
         {"gpu.nvidia.com/" + id32 + "y", false, "name part must be no more than 32 characters"},
         {"gpu.nvidia.com/pcie-root", false, "name part a valid C identifier"},
         {"a/b/c", false, "must be either a C identifier or a domain/C identifier"}});
}

// The message lists (what the CEL format library returns) are the Status texts, split.
TEST(ValidationTest, ErrorListsMatchStatusMessages) {
  using ::testing::ElementsAre;
  using ::testing::IsEmpty;
  EXPECT_THAT(DnsLabelErrors("a.b"), ElementsAre("must not contain dots"));
  EXPECT_THAT(DnsLabelErrors(std::string(64, 'A')),
              ElementsAre("must be no more than 63 characters",
                          HasSubstr("a lowercase RFC 1123 label must consist of")));
  EXPECT_THAT(DnsSubdomainErrors("example.com"), IsEmpty());
  EXPECT_THAT(Dns1035LabelErrors("abc-123"), IsEmpty());
  EXPECT_THAT(Dns1035LabelErrors("1abc"),
              ElementsAre(HasSubstr("a DNS-1035 label must consist of lower case alphanumeric "
                                    "characters or '-', start with an alphabetic character")));
  EXPECT_THAT(QualifiedNameErrors("/x"), ElementsAre("prefix part must be non-empty"));
  EXPECT_THAT(LabelValueErrors(""), IsEmpty());
  for (const char* value : {"a.b", "-x", "/x", "a/b/c", "", "ok"}) {
    const std::vector<std::string> errors = QualifiedNameErrors(value);
    const absl::Status status = IsQualifiedName(value);
    EXPECT_EQ(status.ok(), errors.empty()) << value;
    if (!errors.empty()) {
      EXPECT_EQ(status.message(), absl::StrJoin(errors, "; ")) << value;
    }
  }
}

}  // namespace
}  // namespace names_test
}  // namespace gpuprofile
