"""GELU, its tanh form and SiLU modules through the C API (gemmc.load:
gemmc_module_load, gemmc_launch), against torch in fp32 on the same f16/bf16
inputs; benchmarks/activations-capi.sh prepares the kernels in k/."""
import sys, torch, gemmc
torch.manual_seed(0)
ref = {"gelu": lambda x: torch.nn.functional.gelu(x),
       "gelu_tanh": lambda x: torch.nn.functional.gelu(x, approximate="tanh"),
       "silu": torch.nn.functional.silu}
fails = 0
for kind, dtype in (("mma", torch.float16), ("wg", torch.bfloat16)):
    for act in ("gelu", "gelu_tanh", "silu"):
        k = gemmc.load(open(f"k/{kind}_{act}.ptx").read())
        assert k.activation == act.replace("_", "-"), k.activation
        for (m, n, kk) in ((1, 8, 64), (300, 520, 1000), (1024, 1024, 4096), (77, 4096, 128)):
            a = torch.randn(m, kk, device="cuda", dtype=dtype)
            b = torch.randn(kk, n, device="cuda", dtype=dtype)
            bias = torch.randn(n, device="cuda", dtype=dtype) if kind == "mma" else None
            c = k(a, b, bias=bias) if bias is not None else k(a, b)
            x = a.float() @ b.float() + (bias.float() if bias is not None else 0)
            want = ref[act](x)
            err = ((c.float() - want).norm() / want.norm()).item()
            tol = 2e-3 if dtype == torch.float16 else 1e-2
            ok = err < tol
            fails += not ok
            print(f"{kind}_{act} {m}x{n}x{kk} rel.err {err:.2e} {'PASS' if ok else 'FAIL'}")
print("failures:", fails)
sys.exit(1 if fails else 0)
