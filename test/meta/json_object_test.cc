// File: test/meta/json_object_test.cc
// ObjectWithRoom: members added up to its room stay where they are (no growth copies them).
#include "controller/meta/json_object.h"

#include <string>

#include "gtest/gtest.h"

namespace gpuprofile::meta {
namespace json_object_test {
namespace {

using ordered_json = nlohmann::ordered_json;

TEST(ObjectWithRoomTest, MembersUpToTheRoomAreNeverMoved) {
  ordered_json object = ObjectWithRoom(6);
  EXPECT_TRUE(object.is_object());
  EXPECT_TRUE(object.empty());
  object["metadata"] = ordered_json{{"name", "a"}, {"labels", {{"k", "v"}}}};
  const ordered_json* first = &object["metadata"];
  for (const char* key : {"b", "c", "d", "e", "f"}) object[key] = std::string(40, 'x');
  EXPECT_EQ(&object["metadata"], first) << "the object grew and copied its members";
  EXPECT_EQ(object.size(), 6u);
  object["g"] = 1;  // past the room: still an ordinary object
  EXPECT_EQ(object.size(), 7u);
  EXPECT_EQ(object.begin().key(), "metadata");
}

}  // namespace
}  // namespace json_object_test
}  // namespace gpuprofile::meta
