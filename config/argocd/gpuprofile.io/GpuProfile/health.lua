-- Argo CD health check for gpuprofile.io/GpuProfile (conditions: docs/design.md section 3).
--
-- Order matters:
-- 1. Progressing while the operator has not caught up with the spec Argo CD just applied: no
--    status yet, status.observedGeneration behind metadata.generation, or Reconciling=True.
--    Older conditions describe an older spec, so nothing below is trusted until then.
-- 2. Degraded when the profile cannot do its job: Stalled=True (the spec cannot be realised),
--    Satisfiable=False (the selectors select no device, so pods using it would stay Pending) or
--    Conflict=True (an object it would generate exists and belongs to someone else). The message
--    is that condition's message. Satisfiable=Unknown (invalid spec) is covered by Stalled.
-- 3. Healthy when Ready=True.
-- 4. Progressing otherwise (Ready missing, False or Unknown while work is pending).
--
-- Plain Lua 5.1 (Argo CD runs gopher-lua); tested by tools/argocd/run_health_tests.py.

local function findCondition(conditions, conditionType)
  if type(conditions) ~= "table" then
    return nil
  end
  for _, condition in ipairs(conditions) do
    if type(condition) == "table" and condition.type == conditionType then
      return condition
    end
  end
  return nil
end

local function nonEmpty(s)
  return type(s) == "string" and s ~= ""
end

-- The condition's message, else its reason, else the fallback, so a message is never empty.
local function describe(condition, fallback)
  if nonEmpty(condition.message) then
    return condition.message
  end
  if nonEmpty(condition.reason) then
    return condition.reason
  end
  return fallback
end

local function health(status, message)
  return {status = status, message = message}
end

local function assess(profile)
  local status = profile.status
  if type(status) ~= "table" then
    return health("Progressing", "Waiting for the operator to report status")
  end

  local generation = nil
  if type(profile.metadata) == "table" then
    generation = tonumber(profile.metadata.generation)
  end
  local observed = tonumber(status.observedGeneration)
  if observed == nil then
    return health("Progressing", "Waiting for the operator to observe the profile")
  end
  if generation ~= nil and observed < generation then
    return health("Progressing", string.format(
      "Waiting for the operator to observe generation %d (observed %d)", generation, observed))
  end

  local conditions = status.conditions
  local reconciling = findCondition(conditions, "Reconciling")
  if reconciling ~= nil and reconciling.status == "True" then
    return health("Progressing", describe(reconciling, "Reconciling"))
  end

  local stalled = findCondition(conditions, "Stalled")
  if stalled ~= nil and stalled.status == "True" then
    return health("Degraded", describe(stalled, "Stalled"))
  end
  local satisfiable = findCondition(conditions, "Satisfiable")
  if satisfiable ~= nil and satisfiable.status == "False" then
    return health("Degraded", describe(satisfiable, "No device matches the selectors"))
  end
  local conflict = findCondition(conditions, "Conflict")
  if conflict ~= nil and conflict.status == "True" then
    return health("Degraded", describe(conflict, "Conflict"))
  end

  local ready = findCondition(conditions, "Ready")
  if ready ~= nil and ready.status == "True" then
    -- "every generated object is in place; 16 devices on 5 nodes in 2 node groups"
    local message = describe(ready, "Ready")
    if satisfiable ~= nil and satisfiable.status == "True" and nonEmpty(satisfiable.message) then
      message = message .. "; " .. satisfiable.message
    end
    return health("Healthy", message)
  end
  if ready ~= nil then
    return health("Progressing", describe(ready, "Waiting for the profile to become Ready"))
  end
  return health("Progressing", "Waiting for the profile to become Ready")
end

return assess(obj)
