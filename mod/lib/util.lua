-- Small helpers shared by the ttsmod mods (pure Lua, no TTS API).
local M = {}

--- Decode an object's memo JSON; {} when absent or not an object.
function M.memo(obj)
    local text = obj.memo
    if text == nil or text == "" then
        return {}
    end
    local ok, value = pcall(JSON.decode, text)
    if ok and type(value) == "table" then
        return value
    end
    return {}
end

--- Index of value in list, or nil.
function M.index_of(list, value)
    for i, v in ipairs(list) do
        if v == value then
            return i
        end
    end
    return nil
end

--- Horizontal (x/z) distance between two positions.
function M.flat_distance(a, b)
    local dx = a.x - b.x
    local dz = a.z - b.z
    return math.sqrt(dx * dx + dz * dz)
end

--- A shallow copy of a list.
function M.copy_list(list)
    local out = {}
    for i, v in ipairs(list) do
        out[i] = v
    end
    return out
end

--- Whether a string starts with a prefix.
function M.starts_with(s, prefix)
    return string.sub(s, 1, string.len(prefix)) == prefix
end

return M
