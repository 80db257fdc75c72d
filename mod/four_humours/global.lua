-- Four Humours: Global script (root module of the bundle the build writes into the save), on the shared play
-- loop (lib.play, docs/table-contract.md "A game's mod on lib.play").
--
-- The table is the state: potions, cards and markers lie where the rules put them, and every request is asked
-- about the snapshot read off the table (four_humours.tablemap); the ledger keeps only the bookkeeping the table
-- cannot show (round, turns, passes, goal marks in order, the round being resolved) beside lib.play's own.
--
-- What lib.play does for it: the ledger saved and restored, the link, Setup's seats (bot seats counted), the
-- status line's frame, the score panel, a placement, pass or redraw asked of the bridge (`legal`, the potion
-- back in the hand on a refusal), a ruling's events applied one by one (lib.stepper, through the handlers
-- below), the TTS turn, game over, bots in free seats (lib.bots), and the TTS event functions (play.forward:
-- all but onLoad, which reads a ledger saved by the older mod once, and onObjectDrop).
-- What stays here is the game's own: Setup lays its own table (`deal`: goals, scenes, hands drawn from the
-- bags); which drop is which action; its events' handlers (a placed potion laid face down, draws from the bag,
-- revealed potions moved to their cells, scene and goal markers); its buttons (Pass, Redraw) and its texts.
--
-- Flow: a `legal` ruling whose action ends the round stops at its `round_ended` event: the mod then sends its own
-- request, `end_round`, with the snapshot read off the table, and applies that ruling (play.rule). A
-- `decision_required` event stops the ruling until the owner drops the glowing potion on an outlined cell;
-- `end_round` is then sent again with the same snapshot and the choices so far, and the events applied before
-- are skipped. A table reloaded at a decision shows it again (lib.play re-applies a stopped event).
-- A free seat may be given a bot: when its decision comes the bridge chooses it (`bot_move`) and `perform_bot`
-- makes it on the table as its player would, through the same functions a player's drop or click runs.
local play = require("lib.play")
local pieces = require("lib.pieces")
local bots = require("lib.bots")
local link = require("lib.link")
local panel = require("lib.panel")
local stepper = require("lib.stepper")
local util = require("lib.util")
local map = require("four_humours.tablemap")
local text = require("four_humours.text")

local STEP_DELAY = 0.4       -- seconds between two steps of a ruling, so that players can follow them
local SETTLE_TIMEOUT = 3     -- longest wait for dealt potions to reach a hand, or for moves to end
local STACK_HEIGHT = 0.2     -- height of one potion in a stack on a board cell
local DISCARD_OFFSET = -6    -- the scene discard pile lies this far (z) from where the scene deck started

local tell = panel.tell
local when_settled = stepper.when_settled

local ledger, data = play.ledger, play.data   -- lib.play's ledger (with this game's fields) and generated.game's data

local function rules()
    return data().rules or {}
end

local colour_of = play.colour_of
local seat_of = play.seat_of

local function colours_of(list)
    local out = {}
    for _, seat in ipairs(list or {}) do
        table.insert(out, tostring(colour_of(seat)))
    end
    return out
end

--- The seat whose move the table waits for in placement (the engine's `next`).
local function active()
    return (ledger().next or {}).player
end

--- The table as the engine reads it (the potion `exclude`, just dropped on a slot, left out).
local function snapshot(exclude)
    return map.snapshot(ledger(), exclude)
end

-- ------------------------------------------------------------------ moving things
local function to_hand(obj, colour)
    pieces.send(obj, { hand = colour })
end

local function lay_face_down(obj, p)
    obj.setPosition({ p.x, p.y + 0.1, p.z })
    obj.setRotation({ 0, 180, 180 })
end

--- Deal up to `count` potions from colour's bag into their hand; `done(drawn)` runs once they are in it.
local function draw(colour, count, done)
    local bag = map.bag_of(colour)
    local before = #map.hand_potions(colour)
    local n = 0
    if bag ~= nil then
        n = math.min(count, bag.getQuantity())
    end
    if n > 0 then
        bag.shuffle()
        bag.deal(n, colour)
    end
    local finish = function()
        if done ~= nil then
            done(n)
        end
    end
    local want = before + n
    Wait.condition(finish, function() return #map.hand_potions(colour) >= want end, SETTLE_TIMEOUT, finish)
end

local function move_to_cell(obj, board_id, cell)
    local p = map.cell_position(board_id, cell)
    if p == nil then
        return false
    end
    local height = #map.near("fh-potion", p, obj) * STACK_HEIGHT
    obj.setRotation({ 0, 180, 0 })
    obj.setPositionSmooth({ p.x, p.y + 0.1 + height, p.z }, false, true)
    pieces.track(obj)   -- moving until it has landed (it falls once the move ends: not resting meanwhile)
    return true
end

--- The potion of owner_seat lying on a slot ({kind, card, slot}) — the nearest one — and the slot.
local function potion_on(source, owner_seat)
    local slot = map.find_slot(source.kind, source.card, source.slot)
    if slot == nil then
        return nil, nil
    end
    local best = nil
    local best_d = map.NEAR
    for _, obj in ipairs(map.near("fh-potion", slot.position, nil)) do
        local d = util.flat_distance(obj.getPosition(), slot.position)
        if util.memo(obj).owner == colour_of(owner_seat) and d < best_d then
            best = obj
            best_d = d
        end
    end
    return best, slot
end

--- The name a scene card or a party tile shows (its id when it has none).
local function card_title(kind, id)
    local obj = nil
    if kind == "party" then
        obj = pieces.zone("fh-party", { party = id })
    else
        obj = pieces.zone("fh-scene", { card = id })
    end
    local name = obj ~= nil and obj.getName() or nil
    if name == nil or name == "" then
        return tostring(id)
    end
    return name
end

-- ------------------------------------------------------------------ the game's panels
local function placing()
    return ledger().phase == "play" and not ledger().resolving
end

--- "Round 2 · Red to play", "Round 2 · checking Red's move…", "Round 2 is being resolved…", "Round 2 · Red
--  chooses a cell for a potion", "Game over · White and Red won"; lib.play's line while nothing is set up.
local function status_line(line)
    local l = ledger()
    local round = "Round " .. tostring(l.round)
    if l.phase == "setup" then
        return "Seat the players, then press Setup."
    elseif l.phase == "over" then
        return "Game over · " .. text.join(colours_of((l.outcome or {}).winners)) .. " won"
    elseif l.phase ~= "play" then
        return line
    elseif l.awaiting ~= nil then
        return round .. " · " .. tostring(colour_of(l.awaiting.player)) .. " chooses a cell for a potion"
    elseif l.resolving then
        return round .. " is being resolved…"
    end
    return round .. " · " .. line
end

local function four_identical(colour)
    local hand = map.hand_potions(colour)
    if #hand ~= (rules().hand_size or 4) then
        return false
    end
    local first = util.memo(hand[1]).humour
    for _, obj in ipairs(hand) do
        if util.memo(obj).humour ~= first then
            return false
        end
    end
    return true
end

--- The Pass button of the seat to play, and the Redraw button of a seat holding four identical potions.
local function panels()
    local l = ledger()
    local colour = colour_of(active())
    for _, c in ipairs(data().player_colours) do
        UI.setAttribute("pass_" .. c, "active", tostring(placing() and c == colour))
        local offer = placing() and rules().four_identical_redraw ~= false
            and util.index_of(l.colours, c) ~= nil and four_identical(c)
        UI.setAttribute("redraw_" .. c, "active", tostring(offer))
    end
end

local function score_line(row, colour, body)
    local star = ""
    if util.index_of(body.leaders or {}, row.player) ~= nil then
        star = "★ "
    end
    return star .. colour .. ": " .. text.figures(row)
end

local function score_title()
    return "Round " .. tostring(ledger().round) .. " · goals and tie-break figures"
end

local function game_over(outcome)
    local winners = colours_of(outcome.winners)
    local verb = " wins"
    if #winners > 1 then
        verb = " share the win"
    end
    local figures = {}
    for _, s in ipairs(outcome.standings or {}) do
        table.insert(figures, tostring(colour_of(s.player)) .. " " .. text.figures(s))
    end
    panel.say("Game over: " .. text.termination(outcome.termination) .. ". " .. text.join(winners) .. verb
        .. ". Goals and tie-break figures: " .. table.concat(figures, "; ") .. ".", { 0.5, 1, 0.5 })
end

-- ------------------------------------------------------------------ scenes, markers, goal markers
local function scene_data(card)
    for _, scene in ipairs(data().scenes or {}) do
        if scene.id == card then
            return scene
        end
    end
    return nil
end

--- Where the scene marker of a scene goes: its cell, or for an animal scene the middle of its zone's cells.
local function marker_spot(scene)
    if scene.cell ~= nil and scene.cell ~= "" then
        return map.cell_position("kingdom", scene.cell)
    end
    local sum_x, sum_z, y, n = 0, 0, 0, 0
    for _, board in ipairs(data().boards or {}) do
        if board.id == "kingdom" then
            for _, cell in ipairs(board.cells) do
                if cell.tile == scene.zone then
                    local p = map.cell_position("kingdom", cell.id)
                    if p ~= nil then
                        sum_x, sum_z, y, n = sum_x + p.x, sum_z + p.z, p.y, n + 1
                    end
                end
            end
        end
    end
    if n == 0 then
        return nil
    end
    return { x = sum_x / n, y = y, z = sum_z / n }
end

--- Scene markers on the cells of the scenes in play (kingdom mode); the others back to their reserve.
--  Fief mode has no kingdom map, so the markers stay in reserve.
local function place_scene_markers()
    local markers = getObjectsWithTag("fh-scene-marker")
    table.sort(markers, function(a, b) return a.getGUID() < b.getGUID() end)
    local used = 0
    if ledger().mode ~= "fief" then
        for _, entry in ipairs(map.scene_cards()) do
            local scene = scene_data(util.memo(entry.card).card)
            local p = nil
            if scene ~= nil then
                p = marker_spot(scene)
            end
            if p ~= nil and markers[used + 1] ~= nil then
                used = used + 1
                markers[used].setPositionSmooth({ p.x + 0.45, p.y + 0.2, p.z + 0.45 }, false, true)
                pieces.track(markers[used])
            end
        end
    end
    for i = used + 1, #markers do
        local home = ledger().marker_home[markers[i].getGUID()]
        if home ~= nil then
            markers[i].setPositionSmooth(home, false, true)
            pieces.track(markers[i])
        end
    end
end

--- Every scene card on a spot goes to the discard pile (a potion still on one goes back to its bag first).
local function discard_scenes()
    local l = ledger()
    for _, entry in ipairs(map.scene_cards()) do
        for _, p in pairs(map.snaps(entry.card, "fh-slot:")) do
            for _, obj in ipairs(map.near("fh-potion", p, nil)) do
                local bag = map.bag_of(util.memo(obj).owner)
                if bag ~= nil then
                    bag.putObject(obj)
                end
            end
        end
        local card = util.memo(entry.card).card
        if util.index_of(l.scene_discard, card) == nil then
            table.insert(l.scene_discard, card)
        end
        local d = l.discard_at
        if d ~= nil then
            entry.card.setPosition({ d.x, d.y + 0.05 * #l.scene_discard, d.z })
            entry.card.setRotation({ 0, 180, 0 })
        end
    end
end

--- Deal scene cards `ids` (in order) onto the free scene spots (in index order).
local function deal_scenes(ids)
    local taken = 0
    local cards = getObjectsWithTag("fh-scene")
    for _, spot in ipairs(map.spots("fh-scene-spot")) do
        local occupied = false
        for _, obj in ipairs(cards) do
            if map.on_spot(spot, obj) then
                occupied = true
            end
        end
        if not occupied and taken < #ids then
            taken = taken + 1
            local p = spot.getPosition()
            map.take_scene(ids[taken], { x = p.x, y = p.y - 0.4, z = p.z }, ledger())
        end
    end
end

local function deal_goals(count)
    local dealt = 0
    for _, spot in ipairs(map.spots("fh-goal-spot")) do
        local deck = map.one("fh-goal-deck")
        if deck ~= nil and dealt < count then
            dealt = dealt + 1
            local p = spot.getPosition()
            deck.takeObject({ position = { p.x, p.y - 0.4, p.z }, rotation = { 0, 180, 0 }, smooth = false })
        end
    end
end

local function place_goal_marker(colour, goal)
    local n = #(ledger().marks[goal] or {})
    for _, entry in ipairs(map.goal_cards()) do
        if util.memo(entry.card).goal == goal then
            for _, marker in ipairs(getObjectsWithTag("fh-goal-marker")) do
                if marker.hasTag("owner:" .. colour) and map.spot_of(marker, "fh-goal-spot") == nil then
                    local p = entry.card.getPosition()
                    marker.setPositionSmooth({ p.x - 1.2 + 0.6 * n, p.y + 0.3, p.z - 1.2 }, false, true)
                    pieces.track(marker)
                    return true
                end
            end
        end
    end
    return false
end

--- Party tiles resolved this game move out of the strip (once each). They are locked, so they are set in
--  place rather than moved smoothly (a smooth move is physics, which a locked object takes no part in).
local function set_aside_parties()
    for _, tile in ipairs(map.party_tiles()) do
        local party = util.memo(tile).party
        if tile.hasTag(map.RESOLVED) and util.index_of(ledger().set_aside, party) == nil then
            table.insert(ledger().set_aside, party)
            local p = tile.getPosition()
            tile.setPosition({ p.x + 6, p.y, p.z })
        end
    end
end

-- ------------------------------------------------------------------ setup: the game lays its own table
local function start_round_message()
    panel.say("Round " .. tostring(ledger().round) .. ": " .. tostring(colour_of(active())) .. " begins.",
        { 1, 1, 1 })
end

--- lib.play's `deal`: goals, scenes and hands for the seats in play; `done(next)` once every hand is drawn.
local function deal(colours, done)
    local l = ledger()
    l.fiefs, l.round, l.turn, l.last_actor, l.passes, l.passed = nil, 1, 0, nil, 0, {}
    l.scene_discard, l.resolved_parties, l.set_aside, l.marks, l.marker_home = {}, {}, {}, {}, {}
    l.choices, l.awaiting, l.round_snapshot, l.resolving = {}, nil, nil, nil
    if l.mode == "fief" then
        -- seat i plays the i-th fief board of the game data (as the engine deals them)
        l.fiefs = {}
        for i = 1, #colours do
            l.fiefs[i] = data().boards[i].id
        end
    end
    local scene_deck = map.one("fh-scene-deck")
    local d = scene_deck.getPosition()
    l.discard_at = { x = d.x, y = d.y, z = d.z + DISCARD_OFFSET }
    for _, marker in ipairs(getObjectsWithTag("fh-scene-marker")) do
        local p = marker.getPosition()
        l.marker_home[marker.getGUID()] = { p.x, p.y, p.z }
    end
    map.one("fh-goal-deck").shuffle()
    scene_deck.shuffle()
    deal_goals(rules().goals_per_game or 4)
    local first_scenes = {}
    for i, card in ipairs(map.scene_deck_ids(l)) do
        if i <= (rules().scenes_face_up or 4) then
            table.insert(first_scenes, card)
        end
    end
    deal_scenes(first_scenes)
    local first = math.random(1, #colours) - 1
    if rules().first_player == "host" then
        first = 0
    end
    l.first_player, l.active_player, l.round_starter = first, first, first
    local left = #colours
    for _, colour in ipairs(colours) do
        draw(colour, rules().hand_size or 4, function()
            left = left - 1
            if left == 0 then
                for _, entry in ipairs(map.goal_cards()) do
                    l.marks[util.memo(entry.card).goal] = {}
                end
                l.next = { player = first }
                place_scene_markers()
                start_round_message()
                done({ player = first }, nil)
            end
        end)
    end
end

-- ------------------------------------------------------------------ the round's end (end_round, the game's own)
local send_end_round = nil

local function outline_cells(board_id, cells, colour)
    local board = map.boards()[board_id]
    if board == nil then
        return
    end
    local lines = {}
    for _, sp in ipairs(board.getSnapPoints()) do
        for _, tag in ipairs(sp.tags or {}) do
            for _, cell in ipairs(cells) do
                if tag == "fh-cell:" .. cell then
                    local q = sp.position
                    local d = 0.04
                    table.insert(lines, { points = { { q.x - d, q.y + 0.01, q.z - d }, { q.x + d, q.y + 0.01, q.z - d },
                        { q.x + d, q.y + 0.01, q.z + d }, { q.x - d, q.y + 0.01, q.z + d }, { q.x - d, q.y + 0.01, q.z - d } },
                        color = stringColorToRGB(colour), thickness = 0.05 })
                end
            end
        end
    end
    board.setVectorLines(lines)
end

local function clear_outlines()
    for _, board in pairs(map.boards()) do
        board.setVectorLines({})
    end
end

--- Show the decision the ruling waits for: the potion glows, the allowed cells are outlined.
local function show_decision()
    local a = ledger().awaiting
    local colour = colour_of(a.player)
    local obj = nil
    if a.guid ~= nil then
        obj = getObjectFromGUID(a.guid)
    end
    if obj ~= nil then
        obj.highlightOn(colour)
    end
    outline_cells(a.board, a.cells, colour)
    play.show()
    panel.say(colour .. " chooses where their " .. tostring(a.humour) .. " potion goes: "
        .. table.concat(a.cells, ", ") .. " (outlined).", { 1, 1, 1 })
    tell(colour, "Drop your glowing potion on one of the outlined cells.")
    bots.play()
end

--- The round could not be ended (the bridge refused end_round): placement goes on with the next seat.
local function back_to_placement(message)
    local l = ledger()
    l.resolving, l.round_snapshot, l.choices, l.awaiting, l.end_round_ruled = nil, nil, {}, nil, nil
    local seat = active()
    if l.last_actor ~= nil then
        seat = (l.last_actor + 1) % #l.colours
    end
    tell(nil, message)
    play.rule({ events = {}, next = { player = seat }, complete = true })
end

send_end_round = function()
    local l = ledger()
    play.show()
    link.ask("end_round", { snapshot = l.round_snapshot, choices = l.choices, force = false },
        function(ruling)
            local again = l.end_round_ruled   -- asked before for this round: the events applied are skipped
            l.end_round_ruled = true
            play.rule(ruling, again)
        end,
        function(err)
            back_to_placement("The bridge could not end the round (" .. tostring(err.message) .. "); play goes on.")
        end,
        function() send_end_round() end)
end

--- A placement or pass ended the round (its `legal` ruling's round_ended event): the snapshot is read off the
--  table once nothing moves and `end_round` asked. Asked again as is after a reload (the same snapshot).
local function round_over()
    local l = ledger()
    l.resolving = true
    play.show()
    if l.round_snapshot ~= nil then
        send_end_round()
        return
    end
    l.choices, l.awaiting, l.end_round_ruled = {}, nil, nil
    when_settled(function()
        l.round_snapshot = util.deep_copy(snapshot(nil))
        send_end_round()
    end)
end

--- lib.play's `finished`: after an end_round ruling, the round's clean-up; after a move, whose turn it is.
local function finished()
    local l = ledger()
    if not l.resolving then
        l.active_player = active() or l.active_player
        return
    end
    l.resolving, l.round_snapshot, l.choices, l.awaiting, l.end_round_ruled = nil, nil, {}, nil, nil
    clear_outlines()
    set_aside_parties()
    if l.phase == "over" then
        discard_scenes()    -- the last round's scenes are cleaned up like every round's (FH-9)
        return
    end
    place_scene_markers()
    start_round_message()
end

-- ------------------------------------------------------------------ the events (lib.stepper handlers)
-- Each handler applies one event of a ruling. It returns nil (the next step follows after STEP_DELAY),
-- "stop" (the ruling waits for a player) or "async" (the handler calls resume() itself).
local handlers = {}

handlers.potion_placed = function(e)
    local obj, slot = potion_on(e.target, e.player)
    if obj ~= nil then
        lay_face_down(obj, slot.position)
    end
    local l = ledger()
    l.turn, l.last_actor, l.passes = l.turn + 1, e.player, 0
end

handlers.passed = function(e)
    local l = ledger()
    l.turn, l.last_actor, l.passes = l.turn + 1, e.player, l.passes + 1
    if util.index_of(l.passed, e.player) == nil then
        table.insert(l.passed, e.player)
    end
    panel.say(tostring(colour_of(e.player)) .. " passes.", { 1, 1, 1 })
end

handlers.redrew = function(e)
    local colour = colour_of(e.player)
    local bag = map.bag_of(colour)
    for _, obj in ipairs(map.hand_potions(colour)) do
        bag.putObject(obj)
    end
    UI.setAttribute("redraw_" .. colour, "active", "false")
    panel.say(colour .. " showed four identical potions and draws four new ones.", { 1, 1, 1 })
end

handlers.potions_drawn = function(e, resume)
    draw(colour_of(e.player), e.count, function() resume() end)
    return "async"
end

handlers.round_ended = function(e)
    if not ledger().resolving then
        -- the move that ended the round: the rest of this ruling is the engine's draw, not the table's; nobody
        -- is to move until the round is resolved (the next round's starter, or a choice the ruling asks for)
        ledger().next = nil
        round_over()
        return "stop"
    end
    panel.say("Round " .. tostring(e.round) .. " is over (" .. text.round_end(e.reason)
        .. "): the potions are revealed.", { 1, 1, 1 })
end

handlers.card_resolved = function(e)
    for _, p in ipairs(e.revealed or {}) do
        local obj = potion_on({ kind = e.card_kind, card = e.card, slot = p.slot }, p.owner)
        if obj ~= nil and obj.is_face_down then
            obj.setRotation({ 0, 180, 0 })
        end
    end
    local names = {}
    for _, w in ipairs(e.winners or {}) do
        table.insert(names, tostring(colour_of(w.owner)) .. " (" .. tostring(w.humour) .. ")")
    end
    local line = card_title(e.card_kind, e.card) .. ": won by " .. text.join(names)
    if #(e.sneakers or {}) > 0 then
        line = line .. ", " .. text.join(colours_of(util.pluck(e.sneakers, "owner"))) .. " sneaking away"
    end
    panel.say(line .. ".", { 1, 1, 1 })
    if e.card_kind == "party" then
        if util.index_of(ledger().resolved_parties, e.card) == nil then
            table.insert(ledger().resolved_parties, e.card)
        end
        for _, tile in ipairs(map.party_tiles()) do
            if util.memo(tile).party == e.card then
                tile.addTag(map.RESOLVED)
            end
        end
    end
end

handlers.potion_moved = function(e)
    local obj = potion_on(e.from, e.owner)
    if obj ~= nil then    -- a potion its owner placed by choice is already on its cell
        move_to_cell(obj, e.board, e.cell)
    end
end

handlers.potion_returned = function(e)
    local obj = potion_on(e.from, e.owner)
    local bag = map.bag_of(colour_of(e.owner))
    if obj ~= nil and bag ~= nil then
        bag.putObject(obj)
    end
end

--- How many decisions the ruling being applied has asked for up to the event applied last.
local function decisions_asked()
    local l = ledger()
    local n = 0
    for i = 1, math.min(l.applied, #l.ruling.events) do
        if l.ruling.events[i].event == "decision_required" then
            n = n + 1
        end
    end
    return n
end

handlers.decision_required = function(e)
    local l = ledger()
    if #l.choices >= decisions_asked() then
        -- reloaded after its owner chose: the potion lies on its cell, the rest of the ruling is asked for
        send_end_round()
        return "stop"
    end
    local obj = potion_on(e.from, e.player)
    local guid = nil
    if obj ~= nil then
        guid = obj.getGUID()
    end
    l.awaiting = { player = e.player, from = e.from, board = e.board, cells = e.cells, humour = e.humour,
        guid = guid }
    show_decision()
    return "stop"
end

handlers.goal_marked = function(e)
    local l = ledger()
    local colour = colour_of(e.player)
    l.marks[e.goal] = l.marks[e.goal] or {}
    if util.index_of(l.marks[e.goal], e.player) == nil then
        table.insert(l.marks[e.goal], e.player)
        place_goal_marker(colour, e.goal)
    end
    local title = e.goal
    for _, entry in ipairs(map.goal_cards()) do
        if util.memo(entry.card).goal == e.goal then
            title = entry.card.getName()
        end
    end
    panel.say(tostring(colour) .. " achieves the goal " .. tostring(title) .. ".", { 1, 1, 1 })
end

handlers.round_started = function(e)
    local l = ledger()
    discard_scenes()
    deal_scenes(e.scenes or {})
    l.round, l.active_player, l.round_starter = e.round, e.starter, e.starter
    l.next = { player = e.starter }
    l.passes, l.passed, l.last_actor, l.turn = 0, {}, nil, 0
    play.show()
end

handlers.game_ended = function(e)
    ledger().outcome = e.outcome
end

-- ------------------------------------------------------------------ drops, Pass and Redraw
--- A player dropped the potion the ruling waits for (`done`: see drop).
local function drop_choice(colour, obj, done)
    local l = ledger()
    local a = l.awaiting
    local owner = colour_of(a.player)
    local board_id, cell = map.cell_at(obj.getPosition())
    if colour == owner and board_id == a.board and util.index_of(a.cells, cell) ~= nil then
        obj.highlightOff()
        table.insert(l.choices, { player = a.player, cell = cell })
        l.awaiting = nil
        clear_outlines()
        move_to_cell(obj, board_id, cell)
        panel.say(owner .. " puts their potion on " .. cell .. ".", { 1, 1, 1 })
        send_end_round()
        if done ~= nil then
            done(true)
        end
        return
    end
    local slot = map.find_slot(a.from.kind, a.from.card, a.from.slot)
    if slot ~= nil then
        obj.setRotation({ 0, 180, 0 })
        obj.setPosition({ slot.position.x, slot.position.y + 0.1, slot.position.z })
    end
    if colour ~= owner then
        tell(colour, "Only " .. owner .. " chooses where that potion goes.")
    else
        tell(colour, "That potion may only go on one of: " .. table.concat(a.cells, ", ") .. " (outlined).")
    end
    if done ~= nil then
        done(false)
    end
end

--- A potion dropped by `colour` (a player's drop, or a bot's move through perform_bot). `done(result)` (a bot's
--  move only) hears how it ended: true once the table has taken it, false when it was refused (the potion is back
--  where it came from), nil when it could not be tried now (busy, no bridge).
local function drop(colour, obj, done)
    local finish = function(result)
        if done ~= nil then
            done(result)
        end
    end
    local l = ledger()
    if l == nil or not obj.hasTag("fh-potion") then
        finish(false)
        return
    end
    local m = util.memo(obj)
    if l.awaiting ~= nil and l.awaiting.guid == obj.getGUID() then
        drop_choice(colour, obj, done)
        return
    end
    if l.phase ~= "setup" and map.cell_at(obj.getPosition()) ~= nil then
        -- only the rules put potions on boards: a potion dropped on a cell would count as won there
        to_hand(obj, m.owner)
        tell(colour, "Potions reach the boards only by winning a scene or a party: drop it on a citizen slot.")
        finish(false)
        return
    end
    local slot = map.slot_at(obj.getPosition())
    if slot == nil then
        finish(false)
        return
    end
    if not placing() then
        to_hand(obj, m.owner)
        if l.phase == "setup" then
            tell(colour, "Potions are placed once the game is set up: press Setup.")
        elseif l.phase == "over" then
            tell(colour, "No more potions are placed: the game is over.")
        else
            tell(colour, "Wait: the round is being resolved.")
        end
        finish(nil)
        return
    end
    if m.owner ~= colour then
        to_hand(obj, m.owner)
        tell(colour, "That potion belongs to " .. tostring(m.owner) .. ".")
        finish(false)
        return
    end
    if play.busy() then
        to_hand(obj, colour)
        tell(colour, "Wait a moment: the last move is still being checked.")
        finish(nil)
        return
    end
    -- refused, or no answer: the potion goes back to the hand and nothing else changes
    play.decide(colour, { action = "place", player = seat_of(colour), humour = m.humour,
        target = { kind = slot.kind, card = slot.card, slot = slot.slot } }, { done = done,
        undo = function() to_hand(obj, colour) end,
        snapshot = function() return snapshot(obj) end,
        offline = "The rules bridge is not running, so nothing can be placed yet ('ttsmod bridge').",
        refusal = function(body) return text.refusal(body, colour_of(active())) end,
        failure = function(err) return "The bridge could not check that move: " .. tostring(err.message) end })
end

function onObjectDrop(colour, obj)
    drop(colour, obj, nil)
end

local function do_pass(colour, done)
    if not placing() or seat_of(colour) ~= active() or play.busy() then
        if done ~= nil then
            done(nil)
        end
        return
    end
    play.decide(colour, { action = "pass", player = seat_of(colour) }, { done = done,
        offline = "The rules bridge is not running, so you cannot pass yet ('ttsmod bridge').",
        refusal = function(body) return "You cannot pass: " .. tostring(body.message) .. "." end,
        failure = function(err) return "You cannot pass: " .. tostring(err.message) end })
end

function onPassClick(player, value, id)
    do_pass(string.sub(id, string.len("pass_") + 1))
end

--- `done(result)` (a bot's redraw, lib.bots): true once the new potions are in the hand, false when the bridge
--  refused the redraw, nil when it could not be asked.
local function redraw(colour, done)
    if seat_of(colour) == nil or not placing() then
        if done ~= nil then
            done(nil)
        end
        return
    end
    play.decide(colour, { action = "redraw", player = seat_of(colour) }, { done = done,
        refusal = function(body) return "No redraw: " .. tostring(body.message) .. "." end,
        failure = function(err) return "No redraw: " .. tostring(err.message) end })
end

function onRedrawClick(player, value, id)
    redraw(string.sub(id, string.len("redraw_") + 1))
end


-- ------------------------------------------------------------------ bots in empty seats (lib.bots)
--- Whose decision the table waits for (a colour and a key naming the decision), or nil: the seat to play in
--  placement, the owner of the glowing potion while a ruling waits for a cell; nobody while a move is checked.
local function bot_decision()
    local l = ledger()
    if l == nil or l.phase ~= "play" then
        return nil
    end
    if l.awaiting ~= nil then
        return colour_of(l.awaiting.player), "round " .. tostring(l.round) .. " choice " .. tostring(#l.choices + 1)
    end
    if play.busy() or l.resolving then
        return nil
    end
    return colour_of(active()), "round " .. tostring(l.round) .. " turn " .. tostring(l.turn)
end

--- The bot_move body: the table in placement; the round's snapshot and the choices so far during a ruling.
local function bot_request(colour)
    local l = ledger()
    if l.resolving then
        return { snapshot = l.round_snapshot, choices = util.deep_copy(l.choices) }
    end
    return { snapshot = snapshot(nil) }
end

--- The words of a bot's announcement. A placed potion lies face down, so its humour is not told.
local function bot_words(colour, action)
    if action.action == "place" and type(action.target) == "table" then
        return "places a potion on " .. card_title(action.target.kind, action.target.card) .. " (slot "
            .. tostring((action.target.slot or 0) + 1) .. ")"
    elseif action.action == "pass" then
        return "passes"
    elseif action.action == "redraw" then
        return "shows four identical potions to redraw"
    elseif action.action == "choose" then
        return "chooses the cell " .. tostring(action.cell) .. " for its potion"
    end
    return "plays " .. tostring(action.action)
end

--- A bot's decision made on the table as its player would: a potion from the seat's hand dropped on the slot,
--  the glowing potion dropped on the chosen cell, or the Pass / Redraw button's code; then the same checks and
--  moves as a player's (drop, do_pass, redraw), which tell `done` how it ended.
local function perform_bot(colour, action, done)
    local l = ledger()
    if action.action == "place" and type(action.target) == "table" then
        local slot = map.find_slot(action.target.kind, action.target.card, action.target.slot)
        local potion = nil
        for _, obj in ipairs(map.hand_potions(colour)) do
            if potion == nil and util.memo(obj).humour == action.humour then
                potion = obj
            end
        end
        if slot == nil or potion == nil then
            done(false)
            return
        end
        local p = slot.position
        potion.setPosition({ p.x, p.y + 0.1, p.z })
        drop(colour, potion, done)
    elseif action.action == "choose" and l.awaiting ~= nil then
        local a = l.awaiting
        local potion = nil
        if a.guid ~= nil then
            potion = getObjectFromGUID(a.guid)
        end
        local p = map.cell_position(a.board, action.cell)
        if potion == nil or p == nil then
            done(false)
            return
        end
        potion.setPosition({ p.x, p.y + 0.1, p.z })
        drop(colour, potion, done)
    elseif action.action == "pass" then
        do_pass(colour, done)
    elseif action.action == "redraw" then
        redraw(colour, done)
    else
        done(false)
    end
end

-- ------------------------------------------------------------------ the description, load, save, messages
play.configure({
    game = require("generated.game"),
    ttsmod = require("generated.ttsmod"),
    deal = deal,
    keep = function() return nil end,     -- the table is the state: every request reads it (snapshot)
    snapshot = function() return snapshot(nil) end,
    moving = map.moving,
    handlers = handlers,
    status_line = status_line,
    panels = panels,
    score_line = score_line,
    score_title = score_title,
    game_over = game_over,
    finished = finished,
    perform = perform_bot,
    decision = bot_decision,
    bot_request = bot_request,
    describe = bot_words,
    step_delay = STEP_DELAY,
    settle_timeout = SETTLE_TIMEOUT,
})

--- The saved ledger as lib.play restores it. A decision the ruling waited for is shown anew once the ruling goes
--  on (lib.play applies its event again). A ledger saved by the mod before it ran on lib.play has its phases
--  renamed (placement → play, ended → over); a round it was resolving is asked for again.
local function restored(script_state)
    local state = util.decode(script_state)
    local l = state.ledger
    if type(l) ~= "table" then
        return script_state
    end
    if l.stopped then
        l.awaiting = nil
    end
    local old = { placement = "play", resolution = "play", ended = "over" }
    if old[l.phase] == nil then
        return JSON.encode(state)
    end
    l.resolving = l.phase == "resolution" or nil
    l.next = { player = l.active_player }
    if l.resolving and (l.applied or 0) > 0 then
        l.end_round_ruled = true
        if l.awaiting ~= nil then
            l.applied, l.awaiting = l.applied - 1, nil
        end
    end
    l.phase = old[l.phase]
    return JSON.encode(state)
end

function onLoad(script_state)
    play.load(restored(script_state))
    local l = ledger()
    if l.resolving and l.ruling == nil then
        -- a round being resolved before the mod kept its rulings: asked for again
        Wait.time(round_over, 1)
    end
end

-- onSave, onExternalMessage, onSetupClick, onBotClick, onPlayerChangeColor, onPlayerTurn: lib.play's own
-- (onLoad above and onObjectDrop are the game's)
play.forward()
