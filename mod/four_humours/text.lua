-- What players read: the sentences the Four Humours mod shows for the engine's codes (pure Lua, no TTS API).
local M = {}

local ROUND_END = {
    two_scenes_full = "two scenes are full",
    all_passed = "everyone passed",
    stuck = "nobody can place a potion",
    forced = "the host ended it",
}

local TERMINATION = {
    parties_resolved = "every party has been held",
    scene_deck_exhausted = "the scene deck ran out",
    potions_exhausted = "a player cannot fill a hand any more",
}

local SHORT = { choleric = "C", sanguine = "S", melancholic = "M", phlegmatic = "P" }

function M.round_end(reason)
    return ROUND_END[reason] or tostring(reason)
end

function M.termination(reason)
    return TERMINATION[reason] or tostring(reason)
end

--- Why a placement was refused, for the player who tried it. `colour_of` turns a seat into a colour.
function M.refusal(body, active_colour)
    local reason = body.reason
    if reason == "not_your_turn" then
        return "Not your turn: " .. tostring(active_colour) .. " is playing."
    end
    if reason == "wrong_humour" then
        return "Wrong humour for that citizen: " .. tostring(body.message) .. "."
    end
    if reason == "slot_taken" then
        return "That slot is taken: " .. tostring(body.message) .. "."
    end
    if reason == "party_limit" then
        return "Party limit: " .. tostring(body.message) .. "."
    end
    return "Not there: " .. tostring(body.message) .. "."
end

--- One player's line of figures: "3 goals · 9 placed (C2 S3 M1 P3)".
function M.figures(row)
    local goals = tostring(row.goals) .. " goal"
    if row.goals ~= 1 then
        goals = goals .. "s"
    end
    return goals .. " · " .. tostring(row.placed) .. " placed (" .. SHORT.choleric .. tostring(row.choleric) .. " "
        .. SHORT.sanguine .. tostring(row.sanguine) .. " " .. SHORT.melancholic .. tostring(row.melancholic) .. " "
        .. SHORT.phlegmatic .. tostring(row.phlegmatic) .. ")"
end

--- "White", "White and Red", "White, Red and Blue".
function M.join(names)
    if #names == 0 then
        return "nobody"
    end
    if #names == 1 then
        return names[1]
    end
    local head = {}
    for i = 1, #names - 1 do
        head[i] = names[i]
    end
    return table.concat(head, ", ") .. " and " .. names[#names]
end

return M
