"""Gymnasium's ids for c4engine's environments, registered when c4engine
is imported where gymnasium is installed:

    gymnasium.make("c4engine/ConnectFour-v0", opponent="greedy")
    gymnasium.make_vec("c4engine/ConnectFour-v0", num_envs=4096,
                       vectorization_mode="vector_entry_point", opponent="random")

the single environment (`gymnasium_env`) and the native batch
(`c4engine.vector.VectorEnv`)."""

ID = "c4engine/ConnectFour-v0"


def register():
    """Registers the ids (once)."""
    import gymnasium

    if ID not in gymnasium.registry:
        gymnasium.register(id=ID, entry_point="c4engine.gym:ConnectFourVs",
                           vector_entry_point="c4engine.vector:make_vector_env")
