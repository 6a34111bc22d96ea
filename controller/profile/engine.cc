// File: controller/profile/engine.cc
// (placeholder until the engine lands; keeps the layer's library non-empty)
