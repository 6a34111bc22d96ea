// File: controller/dra/device.cc
// (Device is a plain value type; this file anchors the library until decoders land.)
#include "controller/dra/device.h"
