"""Which remote segment serves each offset, one offset at a time (the obvious, slow form of
``kvlog.tiered.lineage.plan_remote_pieces``).

For offset ``o``: its epoch is the lineage epoch whose range holds it (the local checkpoint's epochs,
then each epoch only the segments give, at its smallest start; an epoch runs to the smallest start of
any higher epoch). The candidates are the segments whose own part for that epoch holds ``o``; each
candidate's part, clipped to the epoch's range, starts somewhere; the candidate whose part starts first
serves ``o`` (ties: the segment listed first, parts in the segment's epoch order). Offsets below the log
start or from the local log start on are not remote. Returns ``{offset: segment_id}``.
"""


def owners(segments, local_epochs, log_start, local_start, limit):
    lineage = dict(local_epochs)
    local = set(lineage)
    for seg in segments:
        for e, o in seg.leader_epochs:
            if e not in local and (e not in lineage or o < lineage[e]):
                lineage[e] = o
    def epoch_range(e):
        start = lineage[e]
        higher = [s for ep, s in lineage.items() if ep > e]
        return start, min(higher) if higher else limit
    parts = []  # (part start, listing order, segment, lo, hi)
    order = 0
    for seg in segments:
        eps = sorted(seg.leader_epochs, key=lambda eo: (eo[1], eo[0]))
        for i, (e, o) in enumerate(eps):
            hi = eps[i + 1][1] if i + 1 < len(eps) else seg.end_offset + 1
            lo, hi = max(o, seg.start_offset), min(hi, seg.end_offset + 1)
            a, b = epoch_range(e)
            lo, hi = max(lo, a), min(hi, b)
            if lo < hi:
                parts.append((lo, order, seg, lo, hi))
                order += 1
    out = {}
    top = limit if local_start is None else local_start
    for o in range(log_start, top):
        cands = [p for p in parts if p[3] <= o < p[4]]
        if cands:
            out[o] = min(cands, key=lambda p: (p[0], p[1]))[2].segment_id
    return out
