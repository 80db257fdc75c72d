-- The mod's saved state. The table is the state of a game; the ledger keeps only the bookkeeping the table
-- cannot show. It is written by onSave and read back by onLoad, so a reloaded table or a restarted bridge
-- carries on where it stopped.
local util = require("lib.util")

local M = {}

--- The ledger to play with after a load: `fresh` (a new game's ledger) with every field found in the saved
--  `script_state` laid over it. Fields added to the mod since the save was written keep their fresh value.
function M.restore(script_state, fresh)
    local saved = util.decode(script_state)
    if type(saved.ledger) == "table" then
        for k, v in pairs(saved.ledger) do
            fresh[k] = v
        end
    end
    return fresh
end

--- The text onSave returns for `ledger`.
function M.save(ledger)
    return JSON.encode({ ledger = ledger })
end

return M
