"""Random-agent steps per second of batched Connect 4 environments, one
process, one core: c4engine.vector (self-play, pgx's functional form, and
the Gymnasium VectorEnv against its native random opponent), pgx's
connect_four (JAX on CPU, the whole loop in jit), or PettingZoo's
connect_four_v3 (one game after another). Each prints one line:
`NAME BATCH STEPS SECONDS STEPS_PER_SECOND`, after a warm-up that the
timing leaves out (JAX's compilation).

    python scripts/bench-vector.py c4engine-selfplay 4096 200
    python scripts/bench-vector.py c4engine-vs-random 4096 200
    python scripts/bench-vector.py pgx 4096 200            # needs pgx and jax[cpu]
    python scripts/bench-vector.py pettingzoo 1 20000      # needs pettingzoo

scripts/bench-vector.sh runs them interleaved, pinned to one core.
"""

import sys
import time

import numpy as np


def random_actions(rng, mask):
    """A uniformly random legal column a game (0 where none is)."""
    return np.argmax(rng.random(mask.shape) * mask, axis=1)


def c4engine_selfplay(batch, steps):
    """pgx's functional form, the random agent's actions drawn natively."""
    from c4engine import vector
    state = vector.init(batch, seed=0)
    for _ in range(10):
        state = vector.step(state, vector.random_actions(state))
    start = time.perf_counter()
    for _ in range(steps):
        state = vector.step(state, vector.random_actions(state))
    return time.perf_counter() - start


def c4engine_vs_random(batch, steps):
    """The Gymnasium VectorEnv against the native random opponent, the
    learner a random agent drawn natively."""
    from c4engine import vector
    env = vector.VectorEnv(batch, "random", seat="alternate")
    env.reset(seed=0)
    for _ in range(10):
        env.step(env.random_actions())
    start = time.perf_counter()
    for _ in range(steps):
        env.step(env.random_actions())
    return time.perf_counter() - start


def c4engine_selfplay_numpy(batch, steps):
    """As c4engine-selfplay, the random agent's actions drawn by numpy."""
    from c4engine import vector
    rng = np.random.default_rng(0)
    state = vector.init(batch, seed=0)
    start = time.perf_counter()
    for _ in range(steps):
        state = vector.step(state, random_actions(rng, state.legal_action_mask))
    return time.perf_counter() - start


def pgx_loop(batch, steps):
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import auto_reset

    env = pgx.make("connect_four")
    init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(auto_reset(env.step, env.init)))

    def one(carry, _):
        state, key = carry
        key, pick, reset = jax.random.split(key, 3)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(pick, logits, axis=-1)
        state = step(state, action, jax.random.split(reset, batch))
        return (state, key), None

    @jax.jit
    def run(state, key):
        return jax.lax.scan(one, (state, key), None, length=steps)[0]

    key = jax.random.PRNGKey(0)
    state = init(jax.random.split(key, batch))
    jax.block_until_ready(run(state, key))  # compile
    start = time.perf_counter()
    jax.block_until_ready(run(state, key))
    return time.perf_counter() - start


def pettingzoo_loop(batch, steps):
    from pettingzoo.classic import connect_four_v3
    rng = np.random.default_rng(0)
    env = connect_four_v3.env()
    env.reset(seed=0)
    start = time.perf_counter()
    for _ in range(steps):
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.reset()
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return time.perf_counter() - start


LOOPS = {"c4engine-selfplay": c4engine_selfplay, "c4engine-vs-random": c4engine_vs_random,
         "c4engine-selfplay-numpy": c4engine_selfplay_numpy,
         "pgx": pgx_loop, "pettingzoo": pettingzoo_loop}

if __name__ == "__main__":
    name, batch, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    seconds = LOOPS[name](batch, steps)
    print(f"{name} {batch} {steps} {seconds:.3f} {batch * steps / seconds:,.0f}")
