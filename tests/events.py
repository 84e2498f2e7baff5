"""The events of a history as the game document writes them, for tests to build games from."""


def deal(winner, rummy=False, **results):
    """A deal: who won and the others' points (`rummy`: Basic Rummy's declared rummy)."""
    event = {"type": "deal", "winner": winner, "results": results}
    if rummy:
        event["rummy"] = True
    return event


def join(name, after=None):
    return {"type": "join", "player": name, "after": after}


def sit_out(name):
    return {"type": "sit_out", "player": name}


def sit_in(name):
    return {"type": "sit_in", "player": name}


def leave(name):
    return {"type": "leave", "player": name}


END = {"type": "end"}
