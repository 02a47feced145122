#!/usr/bin/env python3
"""Write sdk_vectors.json.gz: weight vectors processed by the Bittensor SDK itself.

Every case is run through the SDK's own bittensor/utils/weight_utils.py
(process_weights, which process_weights_for_netuid calls with the subnet's
hyperparameters, then convert_weights_and_uids_for_emit), with the max weight
limit turned into a float by the SDK's own u16_normalized_float from
bittensor/utils/__init__.py. Nothing of the SDK is copied here: its files are
loaded from a checkout given on the command line.

Get the SDK (the vectors were made at tag v10.2.0, commit SDK_COMMIT below):

    git clone https://github.com/opentensor/bittensor /tmp/bittensor
    git -C /tmp/bittensor checkout bb526e6d61210ef2ee0e229f63ca5518381ff5a7

Run (from this directory):

    python3 gen_vectors.py --sdk /tmp/bittensor          # or BITTENSOR_SDK=/tmp/bittensor
    cd .. && go test -run SDK .                           # the Go side must agree bit for bit

Only numpy is needed; the SDK's heavier imports (bittensor_wallet, scalecodec,
its logging, torch) are replaced below by stubs the two functions never use.

Which numpy. The SDK asks for numpy>=2.0.1,<3, and its float32 results depend
on numpy's rules, so the numpy version is part of the vector:

  - Promotion. numpy 2 follows NEP 50: a Python float meeting a float32 array or
    scalar takes float32. numpy 1.x promoted by value, so for example
    limit * cumsum[n_values - 1] in normalize_max_weight was float64 there. On
    the case "cap/5x0.19661", weights [1,1,1,1,10] under limit 19661/65535, the
    capped weight comes out as 0.30000743 under NEP 50 and 0.3000074 under
    numpy 1.24's default rules; over all cases numpy 1.24's default rules
    change the float weights of 55 and a u16 value of one
    ("cap-low/2019/n=95/#38": 30801 instead of 30802). numpy 1.24 can switch
    NEP 50 on with np._set_promotion_state("weak"), and --any-numpy does so;
    then every weight and u16 value matches numpy 2.2.4.
  - np.quantile. numpy 2.0 to 2.3 cast a Python-float q to the array's dtype
    before computing the virtual index (n-1)*q, so the index, its fraction and
    the interpolation are all float32. numpy 1.x keeps q, the index and the
    interpolation weight in float64, which NEP 50 does not change (a 0-d float64
    array is not "weak"), so its threshold is a float64 (a different value in
    138 of the cases, though no kept weight changed); numpy 2.4 computes the
    index in float64 and interpolates in float32. The Go package reproduces
    2.0 to 2.3, whose threshold the Go tests check bit for bit, so by default
    this script refuses any other numpy. --any-numpy lifts that, to compare
    versions; such output is not a vector file for the Go tests.

Debian bookworm ships numpy 1.24. Debian trixie's python3-numpy (2.2.4, built
for Python 3.13) runs on bookworm with trixie's libc6, libblas3, liblapack3,
libgfortran5, libgcc-s1, libstdc++6 and libquadmath0 unpacked next to it
(dpkg-deb -x) and a Python 3.13 started through that libc's
ld-linux-x86-64.so.2 --library-path ...; that is how the committed file was made.

Output is deterministic: the same SDK and numpy give the same bytes.
"""

import argparse
import ast
import gzip
import hashlib
import importlib.util
import json
import os
import platform
import random
import struct
import subprocess
import sys
import types
from pathlib import Path

import numpy as np

SDK_COMMIT = "bb526e6d61210ef2ee0e229f63ca5518381ff5a7"  # bittensor v10.2.0
U16_MAX = 65535
SEED = 19  # the number; every random case derives from it


def numpy_version():
    return tuple(int(p) for p in np.__version__.split(".")[:2])


def load_sdk(root):
    """Import weight_utils.py and u16_normalized_float from an SDK checkout."""

    def stub(name, **attrs):
        m = types.ModuleType(name)
        m.__dict__.update(attrs)
        sys.modules[name] = m
        return m

    class Silent:
        def __getattr__(self, _name):
            return lambda *a, **k: None

    for pkg in ("bittensor", "bittensor.core", "bittensor.utils"):
        stub(pkg, __path__=[])
    stub("bittensor.utils.btlogging", logging=Silent())
    # numpy only: the decorator is the identity when use_torch() is false.
    stub(
        "bittensor.utils.registration",
        legacy_torch_api_compat=lambda f: f,
        torch=None,
        use_torch=lambda: False,
    )
    stub("bittensor.core.types", Weights=object)
    stub("bittensor_wallet", Keypair=object)
    stub("scalecodec", U16=object, ScaleBytes=object, Vec=object)

    path = root / "bittensor" / "utils" / "weight_utils.py"
    spec = importlib.util.spec_from_file_location("bittensor.utils.weight_utils", path)
    wu = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(wu)

    # bittensor/utils/__init__.py imports half the SDK; run only the
    # definitions u16_normalized_float needs.
    init = root / "bittensor" / "utils" / "__init__.py"
    tree = ast.parse(init.read_text(), str(init))
    wanted = [
        node
        for node in tree.body
        if (isinstance(node, ast.FunctionDef) and node.name == "u16_normalized_float")
        or (
            isinstance(node, ast.Assign)
            and any(getattr(t, "id", None) == "U16_MAX" for t in node.targets)
        )
    ]
    if len(wanted) != 2:
        sys.exit(f"{init}: expected U16_MAX and u16_normalized_float, found {len(wanted)} definitions")
    ns = {}
    exec(compile(ast.Module(body=wanted, type_ignores=[]), str(init), "exec"), ns)
    return wu, ns["u16_normalized_float"]


def sdk_commit(root, given):
    if given:
        return given
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
        )
    except (OSError, subprocess.CalledProcessError):
        sys.exit(f"{root} is not a git checkout; pass --sdk-commit")
    return out.stdout.strip()


def hex32(x):
    return struct.pack(">f", float(x)).hex()


def hex64(x):
    return struct.pack(">d", float(x)).hex()


def f32(x):
    return float(np.float32(x))


class QuantileSpy:
    """Records the q and the threshold of the SDK's np.quantile call."""

    def __init__(self):
        self.real = np.quantile
        self.calls = []

    def __call__(self, a, q, *args, **kwargs):
        out = self.real(a, q, *args, **kwargs)
        self.calls.append((q, out))
        return out


def run_case(wu, u16f, spy, case):
    n = case["n"]
    weights = np.array([np.float32(v) for v in case["w"]], dtype=np.float32)
    uids = np.array(case.get("uids", range(len(case["w"]))), dtype=np.int64)
    spy.calls.clear()
    out_uids, out_w = wu.process_weights(
        uids=uids,
        weights=weights,
        num_neurons=n,
        min_allowed_weights=case["min_allowed"],
        max_weight_limit=u16f(case["limit"]),
        exclude_quantile=case["quantile"],
    )
    rec = {
        "name": case["name"],
        "n": n,
        "min_allowed": case["min_allowed"],
        "max_weight_limit": case["limit"],
        "exclude_quantile": case["quantile"],
        "weights": [hex32(v) for v in weights],
        "out_uids": [int(u) for u in out_uids],
        "out_dtype": str(out_w.dtype),
    }
    if "uids" in case:
        rec["uids"] = [int(u) for u in uids]
    if "policy" in case:
        rec["policy"] = case["policy"]
    if out_w.dtype == np.float32:
        rec["out_weights"] = [hex32(v) for v in out_w]
    elif out_w.dtype == np.float64:
        rec["out_weights"] = [hex64(v) for v in out_w]
    else:
        sys.exit(f"{case['name']}: unexpected output dtype {out_w.dtype}")
    if len(spy.calls) > 1:
        sys.exit(f"{case['name']}: np.quantile called {len(spy.calls)} times")
    if spy.calls:
        q, value = spy.calls[0]
        if not isinstance(q, float):
            sys.exit(f"{case['name']}: quantile q is {type(q).__name__}, not a Python float")
        rec["quantile_q"] = hex64(q)
        rec["quantile_dtype"] = str(np.asarray(value).dtype)
        rec["quantile_value"] = hex32(value) if np.asarray(value).dtype == np.float32 else hex64(value)
    try:
        eu, ev = wu.convert_weights_and_uids_for_emit(out_uids, out_w)
        rec["emit_uids"] = [int(u) for u in eu]
        rec["emit_values"] = [int(v) for v in ev]
    except ValueError as e:  # min() of an empty list when n == 0
        rec["emit_error"] = str(e)
    return rec


def policy_vector(kind, top, tail, burn, burn_uid, ranked, n):
    """The shapes of scoring/weights/policy.go: same float64 operations in the
    same order, rounded to float32 once (the Go test checks it bit for bit)."""
    w = [0.0] * n
    if not ranked:
        w[burn_uid] = 1.0
        return [f32(v) for v in w]
    keep = 1 - burn
    w[burn_uid] += burn
    if kind == "winner_take_all":
        w[ranked[0]] += keep
    else:
        w[ranked[0]] += keep * top
        given = top
        k = len(ranked) // 2
        if k >= 2:
            denom = float(k * (k - 1) // 2)
            for r in range(2, k + 1):
                w[ranked[r - 1]] += keep * tail * float(k + 1 - r) / denom
            given += tail
        w[burn_uid] += keep * max(0.0, 1 - given)
    return [f32(v) for v in w]


def two_sided_lerp_matters(w, q16, min_allowed):
    """Whether numpy's _lerp (b - (b-a)*(1-t) for t >= 0.5) and the one-sided
    a + (b-a)*t round to different float32 thresholds for this input, under
    numpy 2.0-2.3's float32 virtual index. Only selects inputs; the values in
    the file are the SDK's."""
    nz = np.sort(np.array([v for v in w if v > 0], dtype=np.float32))
    m = len(nz)
    if m < 2:
        return False
    q = np.float32(min(q16 / U16_MAX, max(0, m - min_allowed) / m))
    vi = np.float32(np.float32(m - 1) * q)
    prev = int(np.floor(vi))
    if prev + 1 >= m:
        return False
    t = np.float32(vi - np.float32(prev))
    a, b = nz[prev], nz[prev + 1]
    d = np.float32(b - a)
    one_sided = np.float32(a + np.float32(d * t))
    two_sided = np.float32(b - np.float32(d * np.float32(np.float32(1) - t)))
    return bool(t >= 0.5 and one_sided != two_sided)


def cases():
    rng = random.Random(SEED)
    out = []

    def add(name, w, n=None, min_allowed=1, limit=U16_MAX, quantile=0, **extra):
        out.append(
            dict(
                name=name,
                w=[f32(v) for v in w],
                n=len(w) if n is None else n,
                min_allowed=min_allowed,
                limit=limit,
                quantile=quantile,
                **extra,
            )
        )

    # Degenerate inputs: uniform 1/n in float64.
    add("zero/n=0", [], n=0, min_allowed=0)
    for n in (1, 5, 256):
        add(f"zero/all-zero/n={n}", [0.0] * n, min_allowed=1)
    add("zero/only-negative", [-1.0, 0.0, -0.5], min_allowed=1)
    add("small-n/3<8", [0.5, 0.3, 0.2], min_allowed=8)
    add("small-n/100<128", [rng.random() for _ in range(100)], min_allowed=128, limit=16384)

    # Fewer non-zero weights than min_allowed: 1e-5 for everyone plus the
    # weights, normalised in float64, with and without a binding cap.
    for n, k, mina, lim in [
        (4, 2, 3, U16_MAX),
        (4, 1, 2, 32768),
        (16, 1, 8, 6553),
        (16, 3, 8, 40000),
        (64, 5, 32, 52428),
        (256, 1, 8, 65535),
        (256, 1, 8, 26214),
        (256, 7, 8, 32768),
        (256, 2, 200, 45000),
        (256, 100, 200, 1000),
    ]:
        w = [0.0] * n
        for u in rng.sample(range(n), k):
            w[u] = rng.random() + 0.01
        add(f"fewer/n={n}/k={k}/min={mina}/limit={lim}", w, min_allowed=mina, limit=lim)

    # Hand cases with known shapes.
    add("cap/5x0.19661", [1, 1, 1, 1, 10], limit=19661)
    add("cap/8x0.16384", [1, 20, 1, 1, 10, 1, 1, 1], limit=16384)
    add("cap/unreachable", [1, 2, 3], limit=16384)
    add("quantile/5/32767", [0.1, 0.2, 0.3, 0.4, 0.5], quantile=32767)
    add("quantile/5/max-exclude", [0.5, 0.4, 0.3, 0.2, 0.1], min_allowed=4, quantile=U16_MAX)
    add("quantile/zero-keeps-min", [2, 1, 1], n=4, uids=[3, 1, 2])

    # Binding caps at limits >= 0.5 (the float32 limit is off the u16 grid by
    # more than 1e-3 units there): a spread over [32768, 65535] plus random ones.
    limits = sorted(set(list(range(32768, 65536, 331)) + [rng.randint(32768, 65535) for _ in range(60)] + [65534]))
    for i, lim in enumerate(limits):
        n = rng.choice([2, 3, 4, 5, 8, 13, 32, 64, 128, 256])
        w = [rng.random() for _ in range(n)]
        for _ in range(rng.choice([1, 1, 2])):
            w[rng.randrange(n)] = rng.uniform(5, 50) * n
        add(f"cap-high/{lim}/n={n}/#{i}", w, min_allowed=rng.choice([0, 1, n // 2, n]), limit=lim)
    # Lower caps, including ones that bind on several entries.
    for i in range(40):
        lim = rng.randint(1, 32767)
        n = rng.randint(2, 256)
        w = [rng.random() ** 6 for _ in range(n)]
        add(f"cap-low/{lim}/n={n}/#{i}", w, min_allowed=rng.choice([1, n // 4]), limit=lim)

    # The exclude quantile: several quantiles, ties, max_exclude binding.
    quantiles = [1, 655, 6553, 13107, 16384, 21845, 32767, 32768, 49151, 58981, 65534, 65535]
    for i, q in enumerate(quantiles):
        for shape in ("ties", "distinct", "decades", "all-equal"):
            n = rng.choice([2, 3, 5, 7, 10, 33, 100, 256])
            if shape == "ties":
                levels = [0.1, 0.2, 0.2, 0.3, 0.5, 1.0]
                w = [rng.choice(levels) for _ in range(n)]
            elif shape == "distinct":
                w = [rng.random() for _ in range(n)]
            elif shape == "decades":
                # b - a rounds differently from a and b here, so numpy's
                # two-sided interpolation and a + (b-a)*t disagree in the last
                # bit of the threshold.
                w = [10 ** rng.uniform(-9, 0) for _ in range(n)]
            else:
                w = [0.25] * n
            mina = rng.choice([0, 1, max(1, n // 2), n - 1])
            add(f"quantile/{shape}/q={q}/n={n}/min={mina}", w, min_allowed=mina, quantile=q,
                limit=rng.choice([U16_MAX, 32768, 13107]))

    # Thresholds where the two-sided interpolation changes the last bit. The
    # kept weights rarely change with that bit (the threshold stays within
    # [a, b]), so these pin the threshold itself.
    found = 0
    while found < 12:
        n = rng.randint(3, 40)
        w = [10 ** rng.uniform(-9, 0) for _ in range(n)]
        q = rng.randint(1, U16_MAX - 1)
        if two_sided_lerp_matters([f32(v) for v in w], q, 1):
            add(f"quantile/two-sided-lerp/q={q}/n={n}/#{found}", w, quantile=q)
            found += 1

    # 256-uid subnets with the policy's shapes (scoring/weights/policy.go).
    policies = [
        ("winner_take_all", 0.7, 0.3, 0.0, 0),
        ("winner_take_all", 0.7, 0.3, 0.25, 0),
        ("taper", 0.5, 0.4, 0.05, 0),
        ("taper", 0.7, 0.3, 0.0, 0),
        ("taper", 0.45, 0.35, 0.1, 255),
    ]
    for pi, (kind, top, tail, burn, burn_uid) in enumerate(policies):
        for nranked in (0, 1, 3, 10, 255):
            ranked = rng.sample([u for u in range(256) if u != burn_uid], nranked)
            w = policy_vector(kind, top, tail, burn, burn_uid, ranked, 256)
            pol = dict(kind=kind, top_share=top, tail_share=tail, burn_fraction=burn, burn_uid=burn_uid, ranked=ranked)
            for lim, mina, q in [(U16_MAX, 1, 0), (26214, 8, 0), (13107, 8, 6553), (45000, 64, 0), (6553, 1, 32767)]:
                add(f"policy/{kind}/burn={burn}/ranked={nranked}/limit={lim}/min={mina}/q={q}", w, min_allowed=mina,
                    limit=lim, quantile=q, policy=pol)

    # Random vectors, seeded.
    def draw(dist, n):
        if dist == "uniform":
            return [rng.random() for _ in range(n)]
        if dist == "skewed":
            return [rng.random() ** 8 for _ in range(n)]
        if dist == "sparse":
            return [rng.random() if rng.random() < 0.2 else 0.0 for _ in range(n)]
        if dist == "decades":
            return [10 ** rng.uniform(-9, 0) for _ in range(n)]
        if dist == "tiny":
            return [rng.random() * 1e-6 for _ in range(n)]
        if dist == "signed":
            return [rng.uniform(-1, 1) for _ in range(n)]
        raise ValueError(dist)

    dists = ["uniform", "skewed", "sparse", "decades", "tiny", "signed"]
    for i in range(150):
        dist = dists[i % len(dists)]
        n = rng.choice([rng.randint(1, 16), rng.randint(17, 255), 256, 256])
        w = draw(dist, n)
        lim = rng.choice([U16_MAX, rng.randint(0, U16_MAX), rng.randint(32768, U16_MAX), rng.randint(1, 16384)])
        q = rng.choice([0, 0, rng.randint(0, U16_MAX), 6553])
        mina = rng.choice([0, 1, 8, rng.randint(0, n + 2)])
        add(f"random/{dist}/n={n}/#{i}", w, min_allowed=mina, limit=lim, quantile=q)
    # Longer arrays: numpy's pairwise sum recurses deeper.
    for n in (1000, 4096):
        add(f"random/long/n={n}", draw("uniform", n), min_allowed=8, limit=rng.randint(1, 3000), quantile=6553)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sdk", default=os.environ.get("BITTENSOR_SDK"), help="bittensor checkout (or BITTENSOR_SDK)")
    ap.add_argument("--sdk-commit", help="the checkout's commit when it is not a git work tree")
    ap.add_argument("--out", default=str(Path(__file__).with_name("sdk_vectors.json.gz")))
    ap.add_argument("--any-numpy", action="store_true",
                    help="run with a numpy other than 2.0-2.3 (numpy 1.x with NEP 50 promotion), to compare versions")
    args = ap.parse_args()
    if not args.sdk:
        sys.exit("give the bittensor checkout with --sdk or BITTENSOR_SDK")
    root = Path(args.sdk)
    ver = numpy_version()
    promotion = "NEP 50 (numpy 2 default)"
    if not ((2, 0) <= ver < (2, 4)):
        if not args.any_numpy:
            sys.exit(f"numpy {np.__version__}: the vectors need numpy 2.0-2.3 (see the top of this file), "
                     "or --any-numpy for a comparison run")
        if ver < (2, 0):
            np._set_promotion_state("weak")
            promotion = "NEP 50 via np._set_promotion_state('weak')"
    commit = sdk_commit(root, args.sdk_commit)
    if commit != SDK_COMMIT:
        print(f"warning: SDK at {commit}, the committed vectors are from {SDK_COMMIT}", file=sys.stderr)

    wu, u16f = load_sdk(root)
    spy = QuantileSpy()
    np.quantile = spy
    try:
        records = [run_case(wu, u16f, spy, c) for c in cases()]
    finally:
        np.quantile = spy.real

    limits = b"".join(struct.pack("<d", u16f(x)) for x in range(U16_MAX + 1))
    doc = {
        "generator": "scoring/weights/testdata/gen_vectors.py",
        "sdk": {"repository": "https://github.com/opentensor/bittensor", "commit": commit,
                "files": ["bittensor/utils/weight_utils.py", "bittensor/utils/__init__.py"]},
        "numpy": np.__version__,
        "promotion": promotion,
        "python": platform.python_version(),
        "seed": SEED,
        # sha256 of u16_normalized_float(0..65535) as little-endian float64s.
        "u16_normalized_float_sha256": hashlib.sha256(limits).hexdigest(),
        "cases": records,
    }
    # One case per line keeps diffs of a regenerated file readable.
    head = json.dumps({k: v for k, v in doc.items() if k != "cases"}, sort_keys=True, indent=1)[:-2]
    lines = [json.dumps(r, sort_keys=True, separators=(",", ":")) for r in records]
    text = head + ',\n "cases": [\n' + ",\n".join(lines) + "\n ]\n}\n"
    json.loads(text)  # the hand-joined document must still be JSON
    # mtime 0 and no file name in the header: the same input gives the same bytes.
    with open(args.out, "wb") as f, gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0, compresslevel=9) as z:
        z.write(text.encode())
    print(f"{args.out}: {len(records)} cases, numpy {np.__version__}, SDK {commit[:12]}", file=sys.stderr)


if __name__ == "__main__":
    main()
