"""A real @triton.jit kernel for the Triton integration tests (imported only
where triton is installed; compiled for sm_90 without a GPU)."""
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def compile_add(block=256):
    """A CompiledKernel of add_kernel, as the JIT would build it for fp32
    pointers and an i32 n."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    src = ASTSource(add_kernel, signature, {"BLOCK": block}, {(0,): [["tt.divisibility", 16]]})
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
