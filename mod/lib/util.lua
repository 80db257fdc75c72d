-- Small helpers shared by the ttsmod mods (pure Lua, no TTS API).
local M = {}

--- Decode a JSON object; {} when the text is absent, empty or not an object.
function M.decode(text)
    if text == nil or text == "" then
        return {}
    end
    local ok, value = pcall(JSON.decode, text)
    if ok and type(value) == "table" then
        return value
    end
    return {}
end

--- Decode an object's memo JSON; {} when absent or not an object.
function M.memo(obj)
    return M.decode(obj.memo)
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

--- A deep copy of plain data (tables of strings, numbers, booleans and tables; no cycles).
function M.deep_copy(value)
    if type(value) ~= "table" then
        return value
    end
    local out = {}
    for k, v in pairs(value) do
        out[k] = M.deep_copy(v)
    end
    return out
end

--- The values of field `key` of every entry of a list.
function M.pluck(list, key)
    local out = {}
    for i, v in ipairs(list) do
        out[i] = v[key]
    end
    return out
end

--- Whether a string starts with a prefix.
function M.starts_with(s, prefix)
    return string.sub(s, 1, string.len(prefix)) == prefix
end

return M
