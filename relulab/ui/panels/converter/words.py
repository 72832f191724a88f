"""What the Deep → shallow panel says: the verdict, the sizes beside Corollary 1's bound,
the explanation in plain words, the shallow network's layers, a region's affine map, and
the tables behind the plots. Plain text (some of it HTML for a rich-text label) made from
a :class:`~relulab.ui.panels.converter.jobs.Result`; no Qt, so each can be read and
checked without a window.
"""

from __future__ import annotations

from relulab.model.regions.slices import SliceState
from relulab.ui.panels.converter.jobs import Result

_CELL = 'style="padding: 2px 6px;"'
#: How the relulab commands build a shallow network too large for the panel.
BUILD_ELSEWHERE = "relulab slice, then relulab convert --force, build it"


def n(value) -> str:
    """A count as the app writes numbers: thousands with a comma (16,777,216)."""
    return f"{int(value):,}"


def counts(values) -> str:
    """Counts separated by commas and spaces: 1,840, 1,755, 35,020."""
    return ", ".join(map(n, values))


def bound_text(conv) -> str:
    """"max{2n + k, 2n + p, 2pm} = max{…} = bound", with the 1-D reading of k."""
    from relulab.model.shallow.construction import COROLLARY_TERMS

    return (f"max{{{', '.join(COROLLARY_TERMS)}}} = max{{{counts(conv.terms)}}} = {n(conv.bound)}"
            + (" (k = 2(p − 1) in 1-D)" if conv.one_d is not None else ""))


def sizes_text(sizes) -> str:
    """Layer sizes joined by hyphens, each hyphen a place where a narrow column may
    wrap (Unicode keeps a hyphen before a digit on its line, so a zero-width space
    follows it): 64-64-64-64-64-64-64-64 fits the controls' width, and the details'
    words are not cut at their right edge. Readouts read the space as nothing."""
    return "-\u200b".join(map(str, sizes))


def layers(count: int) -> str:
    """"1 hidden layer", "3 hidden layers"."""
    return f"{count} hidden layer" + ("" if count == 1 else "s")


def size_rows(conv) -> list[list[str]]:
    """[row name, hidden layers, widths, neurons, parameters] for deep, shallow, bound
    (the numbers as plain digits: the table exported as CSV)."""
    deep, shallow = conv.deep, conv.shallow
    return [
        ["deep", str(len(deep.hidden_sizes)), "-".join(map(str, deep.hidden_sizes)),
         str(deep.n_hidden_neurons), str(deep.n_params)],
        ["shallow", str(len(shallow.hidden_sizes)),
         "-".join(map(str, shallow.hidden_sizes)) or "0", str(sum(shallow.hidden_sizes)),
         str(shallow.n_params)],
        ["Corollary 1", "3", f"max{{{', '.join(map(str, conv.terms))}}} = {conv.bound}",
         f"≤ {3 * conv.bound}", ""],
    ]


def sizes(conv) -> tuple[str, str]:
    """The sizes of the deep and the shallow network beside the bound: (spoken, HTML)."""
    deep, shallow = conv.deep, conv.shallow
    rows = [["deep", len(deep.hidden_sizes), deep.hidden_sizes,
             n(deep.n_hidden_neurons), n(deep.n_params)],
            ["shallow", len(shallow.hidden_sizes), shallow.hidden_sizes,
             n(sum(shallow.hidden_sizes)), n(shallow.n_params)]]
    names = ["layers", "widths", "neurons", "parameters"]
    heads = ["deep", "shallow", "bound"]
    html = ["<table>", "<tr><th></th>" + "".join(f"<th {_CELL}>{h}</th>" for h in heads) + "</tr>"]
    bound = ["3", f"≤ {n(conv.bound)} each", f"≤ {n(3 * conv.bound)}", ""]
    for i, name in enumerate(names):
        vals = [_cell(rows[0], i), _cell(rows[1], i), bound[i]]
        html.append(f"<tr><th {_CELL} align='left'>{name}</th>"
                    + "".join(f"<td {_CELL} align='center'>{v}</td>" for v in vals) + "</tr>")
    html.append("</table>")
    html.append(f"<p>Corollary 1: width ≤ {bound_text(conv)}</p>")
    spoken = "; ".join(f"{r[0]}: {layers(r[1])}, widths {'-'.join(map(str, r[2])) or '0'}, "
                       f"{r[3]} neurons, {r[4]} parameters" for r in rows)
    spoken += f"; Corollary 1: width ≤ {bound_text(conv)}"
    return spoken, "".join(html)


def _cell(row, i: int) -> str:
    """Column ``i`` of a sizes row in the table: layers as a count, widths wrappable."""
    if i == 0:
        return n(row[1])
    if i == 1:
        return sizes_text(row[2]) or "0"
    return row[i + 1]


def unbuilt_sizes(res: Result) -> str:
    """The deep network of the slice and Corollary 1's widths, when the shallow one
    is not built (the widths are what it would have)."""
    r = res.slice_view.restricted
    hidden = r.hidden_sizes
    rows = [("hidden layers", n(len(hidden))), ("widths", sizes_text(hidden)),
            ("neurons", n(sum(hidden))), ("parameters", n(r.n_params))]
    html = ["<table>", f"<tr><th></th><th {_CELL}>deep (slice)</th></tr>"]
    html += [f"<tr><th {_CELL} align='left'>{a}</th><td {_CELL} align='center'>{b}</td></tr>"
             for a, b in rows]
    html.append("</table>")
    if res.terms is not None:
        w, p, k = res.terms
        html.append(f"<p>Corollary 1: width ≤ max{{{counts(w)}}} = {n(max(w))} "
                    f"(p = {n(p)}, k = {n(k)})</p>")
    return "".join(html)


def unbuilt(res: Result) -> tuple[str, str]:
    """(the verdict, what else to know) of a slice whose shallow network is not built:
    one line for the verdict, the widths it would have and how to build it beside."""
    text = f"The shallow network is not built here: {res.problem}."
    more = ""
    if res.terms is not None:
        more = (f"Its widths would be {counts(res.terms[0])} (Corollary 1); "
                f"{BUILD_ELSEWHERE}.")
    return text, more


def verdict(res: Result, cut: SliceState | None) -> tuple[bool, str, str]:
    """(equal, the verdict, what was converted) of a converted result; ``cut`` is the
    slice in the state, for the rows it went through."""
    conv, v = res.conversion, res.verification
    # 1-D: within the scale-relative rounding bound (model.shallow.ROUNDING); n-D: the
    # region-by-region proof (model.shallow.proof), random points beside it
    ok = v.ok()
    if conv.one_d is not None:
        at_kinks = v.max_error_at_kinks if v.max_error_at_kinks is not None else 0.0
        text = (f"{'Equal up to rounding' if ok else 'NOT equal'}: largest |deep − shallow| "
                f"{max(v.max_error_exact_points, v.max_error_random):.2g} "
                f"({v.max_rounding_ratio:.2g} of the rounding bound); at every kink "
                f"{at_kinks:.2g} ({n(len(conv.one_d.kinks))} kinks, and between them); end "
                f"slopes {'agree' if v.end_slopes_agree else 'DIFFER'}.")
        summary = (f"1-D: K = {n(len(conv.one_d.kinks))} kinks ({conv.one_d.certificate}) → "
                   f"one hidden layer of width {n(conv.one_d.width)} with finite weights. "
                   f"{conv.one_d.rule}.")
    else:
        head = ("NOT equal" if not ok else "Equal" if v.proof.exact else "Equal up to rounding")
        text = (f"{head}: {v.proof.short()}. At {n(v.n_random)} random points the largest "
                f"|deep − shallow| is {v.max_error_random:.2g}.")
        shown = f", {n(len(res.polygons))} drawn" if conv.n_in == 2 else \
            " (the map is drawn for 2-D input only)"
        space = "R" + "²³⁴"[conv.n_in - 2]
        summary = (f"{conv.n_in}-D: p = {n(conv.p)} activation regions on all of {space} "
                   f"({n(res.lower_dimensional)} lower-dimensional{shown}), k = {n(conv.k)} "
                   "constraints. Regions are not pieces: neighbours may share one affine map.")
    if res.slice_view is not None:
        summary = slice_summary(res, cut)
    return ok, text, summary


def slice_summary(res: Result, state_cut: SliceState | None) -> str:
    """What a slice is and what was converted on it."""
    view = res.slice_view
    cut = view.cut
    r = view.restricted
    arch = sizes_text(r.sizes)  # (wraps in the details' width)
    rows = [r for r in state_cut.rows if r is not None] if state_cut else []
    names = ", ".join("ABC"[:len(cut.coords)])
    through = f" (rows {', '.join(map(str, rows))})" if len(rows) == len(cut.coords) else ""
    text = (f"The {cut.kind} through {names}{through}: the restricted network {arch} "
            "(first layer W·D, W·o + b). ")
    conv = res.conversion
    if cut.kind == "line":
        lp = view.pieces
        kinks = [o.n_kinks for o in lp.outputs]
        text += (f"{n(len(lp.kinks))} exact kinks on the whole line ({lp.certificate})"
                 + (f", per output {', '.join(map(n, kinks))}"
                    if len(set(kinks)) > 1 else
                    (" where every output bends" if len(kinks) > 1 else "")) + ".")
        if conv is not None:
            text += f" One hidden layer of width {n(conv.one_d.width)}: {conv.one_d.rule}."
    else:
        text += f"{n(len(view.polygons))} exact regions in the box"
        if conv is not None:
            text += (f"; p = {n(conv.p)} on the whole plane ({n(res.lower_dimensional)} "
                     f"lower-dimensional), k = {n(conv.k)} constraints")
        elif res.terms is not None:
            text += (f"; p = {n(res.terms[1])} on the whole plane, k = {n(res.terms[2])} "
                     "constraints")
        text += "."
        if view.decisions is not None:
            text += " Colours: the class each region's affine map gives (argmax)."
    if conv is None and res.problem:
        text += " " + " ".join(filter(None, unbuilt(res)))
    return text


def explanation(res: Result, n_in: int) -> str:
    """What the panel shows, in plain words (the formulas are in the details); ``n_in``
    is the deep network's number of inputs."""
    if res.slice_view is not None:
        cut = res.slice_view.cut
        shown = ("a line that bends at kinks, drawn against the position t along it"
                 if cut.kind == "line" else
                 "cut into regions, each one flat, affine map (each colour one region)")
        built = ("" if res.conversion is not None else
                 " Its shallow network is too large to build here; its widths are below.")
        return (f"<b>A slice through a network with {n_in} inputs.</b> On the "
                f"{cut.kind} through the points chosen the network is {shown}; "
                f"one hidden layer computes the same function there.{built}")
    conv = res.conversion
    deep = sizes_text(conv.deep.sizes)  # a long one wraps in the details' width
    if conv.one_d is not None:
        k, width = len(conv.one_d.kinks), conv.one_d.width
        if not res.verification.ok():
            return (f"<b>The check failed.</b> The deep network {deep} is a line that bends "
                    f"at {n(k)} kink{'s' if k != 1 else ''}; the hidden layer of {n(width)} "
                    f"neuron{'s' if width != 1 else ''} built for it draws a different line "
                    "(deep solid, shallow dashed; below, their difference), so it is not "
                    "offered for export.")
        return (f"<b>One hidden layer computes the same function.</b> The deep network "
                f"{deep} is a line that bends at {n(k)} kink{'s' if k != 1 else ''}; one hidden "
                f"layer of {n(width)} neuron{'s' if width != 1 else ''}, one per kink, draws the "
                "same line: deep solid, shallow dashed. Below, their difference: zero up "
                "to rounding.")
    if conv.n_in == 2:
        return (f"<b>The same function, region by region.</b> The deep network {deep} cuts "
                f"the plane into {n(conv.p)} regions (each colour one region; colours repeat); "
                "in each it is one flat, affine map. The shallow network, three hidden "
                "layers, rebuilds every region. Click one to see its map.")
    return (f"<b>The same function, region by region.</b> The deep network {deep} cuts "
            f"R{'²³⁴'[conv.n_in - 2]} into {n(conv.p)} regions, in each of which it is one affine "
            "map; the shallow network, three hidden layers, rebuilds every one.")


def layers_1d(conv, of_slice: bool = False, checked: bool = True) -> str:
    """The shallow network of a 1-D conversion: one hidden layer of finite weights;
    exportable only when ``checked`` (its check found it equal to the deep one)."""
    widths = conv.shallow.hidden_sizes
    export = ("exportable as JSON, NPZ and ONNX." if checked else
              "not exported: the check found it different from the deep network.")
    if of_slice:
        return (f"Shallow network of the slice: 1 → {n(widths[0] if widths else 0)} → "
                f"{conv.n_out}, every weight finite; {export}")
    return (f"Shallow network: {conv.n_in} → {n(widths[0] if widths else 0)} → "
            f"{conv.n_out}, every weight finite; {export}")


def layers_nd(conv) -> str:
    """The shallow network's three hidden layers and what each does."""
    from relulab.model.shallow.construction import COROLLARY_TERMS

    what = ("x⁺, x⁻ and one detector per constraint",
            "x⁺, x⁻ and o_r (0 inside region r, ∞ outside)", "ReLU(±(A_r x + c_r) − o_r)")
    return ("Shallow network (3 hidden layers, ±∞ rows):\n"
            + "".join(f"  {i + 1}. {n(width)} = {words}: {does}\n" for i, (width, words, does)
                      in enumerate(zip(conv.terms, COROLLARY_TERMS, what)))
            + "Export as JSON or NPZ (ONNX cannot hold ∞). This follows a reconstruction of "
            "Villani & Schoots' construction; the paper's count of k and its treatment of "
            "region boundaries may differ.")


def region_text(regions, index: int) -> str:
    """Region ``index`` of the conversion: its affine map and constraints."""
    return f"Region {n(index + 1)} of {n(len(regions))}\n" + regions[index].describe(digits=3)


def slice_region_text(view, conv, index: int) -> str:
    """Region ``index`` of a plane slice's box: the conversion's region of the same
    pattern, or its pattern and affine map in the slice's coordinates."""
    poly = view.polygons[index]
    head = (f"Region {n(index + 1)} of the {n(len(view.polygons))} in the box, on the plane "
            "x = A + t₁·d₁ + t₂·d₂ (coordinates t1, t2)\n")
    if conv is not None and conv.regions:
        key = poly.pattern.tobytes()
        for r in conv.regions:
            if r.pattern.tobytes() == key:
                return head + r.describe(digits=3)
    from relulab.model.regions.activation import _affine_text

    lines = [f"pattern {''.join('1' if b else '0' for b in poly.pattern)}"]
    for i in range(poly.A.shape[0]):
        lines.append(f"f{i}(t) = {_affine_text(poly.A[i], poly.c[i], ['t1', 't2'], 3)}")
    return head + "\n".join(lines)


def nothing_to_export(res: Result | None, busy: bool) -> str | None:
    """Why there is no shallow network to export (None: there is one)."""
    if res is None:
        return ("Nothing to export yet: the conversion is still running." if busy
                else "Nothing to export: the conversion failed.")
    if res.conversion is None:
        return f"Nothing to export: the slice was not converted ({res.problem})"
    # a network that failed its check is never written, here as in relulab convert
    if res.verification is not None and not res.verification.ok():
        return "Nothing to export: the check found deep and shallow different."
    return None


def numbers(res: Result | None) -> dict:
    """What the verdict and the sizes say in numbers (None while converting)."""
    conv = res.conversion if res is not None else None
    v = res.verification if res is not None else None
    return {
        "largest_difference": None if v is None else
        float(max(v.max_error_exact_points, v.max_error_random)),
        "kinks": len(conv.one_d.kinks) if conv is not None and conv.one_d is not None else None,
        "regions": int(conv.p) if conv is not None and conv.one_d is None else None,
        "deep_neurons": None if conv is None else int(conv.deep.n_hidden_neurons),
        "shallow_neurons": None if conv is None else int(sum(conv.shallow.hidden_sizes)),
        "bound": None if conv is None else int(conv.bound)}


def tables(res: Result | None, view=None) -> dict:
    """The data behind the plots, {name: (headers, rows)}: the slice's (``view``, when
    a slice is on screen), then the kinks or the regions, and the sizes."""
    out = slice_tables(view) if view is not None else {}
    if res is None or res.conversion is None:
        return out
    conv = res.conversion
    if conv.one_d is not None:
        out["kinks"] = (["index", "t", "f(t)", "slope jump", "abs difference at t"],
                        res.kink_rows.tolist())
    else:
        out["regions"] = (
            ["region", "pattern", "full-dimensional", "A", "c", "constraints", "witness"],
            [[i + 1, r.pattern_text(), r.is_full_dimensional(), r.A.tolist(), r.c.tolist(),
              r.n_constraints, r.witness.tolist()] for i, r in enumerate(conv.regions)])
    out["sizes"] = (["", "hidden layers", "widths", "neurons", "parameters"], size_rows(conv))
    return out


def slice_tables(view) -> dict:
    """A slice's points, and its regions in the box (plane) or each output's kinks (line)."""
    cut = view.cut
    coords = ["t"] if cut.kind == "line" else ["t1", "t2"]
    points = (["point", "label", *coords, "network's class"],
              [[name, cut.labels[i] if i < len(cut.labels) else name,
                *map(float, cut.coords[i]),
                int(view.winners[i]) if view.winners is not None else ""]
               for i, name in enumerate(("A", "B", "C")[:len(cut.coords)])])
    out = {"slice points": points}
    if cut.kind == "plane":
        out["regions in the box"] = (
            ["region", "pattern", "area", "A", "c"],
            [[i + 1, "".join("1" if b else "0" for b in p.pattern), p.area, p.A.tolist(),
              p.c.tolist()] for i, p in enumerate(view.polygons)])
    else:
        rows = []
        for o, pl in enumerate(view.pieces.outputs):
            rows += [[o, float(t), float(y), float(j)]
                     for t, y, j in zip(pl.kinks, pl.values, pl.jumps)]
        out["kinks of each output"] = (["output", "t", "value", "slope jump"], rows)
    return out
