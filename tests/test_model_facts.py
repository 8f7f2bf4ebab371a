"""Facts the model owns so that rules need not re-derive them: batching state along a path, what a
mapped function returns and does, optimizer factories, PyDataset `__init__`s."""
from __future__ import annotations

from textwrap import dedent

import libcst as cst

from pipelint.api import check_source
from pipelint.model import PipelineModel, batch_states


def build(source: str) -> PipelineModel:
    return PipelineModel.build(cst.parse_module(dedent(source)))


def only_site(model: PipelineModel, name: str):
    (site,) = list(model.ops(name))
    return site


def test_batched_at_follows_batch_and_unbatch_along_the_path():
    model = build("""\
        import tensorflow as tf
        ds = tf.data.Dataset.range(8).batch(2).unbatch().shuffle(4).padded_batch(2).prefetch(1)
    """)
    (path,) = only_site(model, "prefetch").prefixes
    states = {op.name: batched for op, batched in batch_states(path.all_ops())}
    assert states == {"batch": False, "unbatch": True, "shuffle": False, "padded_batch": False}
    shuffle = next(op for op in path.ops if op.name == "shuffle")
    assert path.batched_at(shuffle) is False
    assert path.ends_batched() is True


def test_every_batching_method_batches_including_sparse_and_bucketing():
    for method in ("batch(2)", "padded_batch(2)", "ragged_batch(2)", "sparse_batch(2, [4])",
                   "bucket_by_sequence_length(len, [4], [2, 2])"):
        model = build(f"""\
            import tensorflow as tf
            ds = tf.data.Dataset.range(8).{method}.prefetch(1)
        """)
        (path,) = only_site(model, "prefetch").prefixes
        assert path.ends_batched(), method


def test_implicit_batch_of_a_keras_helper_counts():
    model = build("""\
        import keras
        ds = keras.utils.image_dataset_from_directory('d').shuffle(8)
    """)
    (path,) = only_site(model, "shuffle").prefixes
    assert path.ends_batched()


def map_facts(source: str):
    return only_site(build(source), "map").op.facts


def test_lambda_of_casts_and_arithmetic_is_elementwise_and_shape_free():
    facts = map_facts("""\
        import tensorflow as tf
        ds = tf.data.Dataset.range(8).map(lambda x: tf.cast(x, tf.float32) / 255.0)
    """)
    assert facts.returned is not None and facts.elementwise and not facts.shape_bound


def test_reshape_and_indexing_are_shape_bound():
    for body in ("tf.reshape(x, [-1])", "x[0]", "x[:3]", "tf.expand_dims(x, 0)"):
        facts = map_facts(f"""\
            import tensorflow as tf
            ds = tf.data.Dataset.range(8).map(lambda x: {body})
        """)
        assert facts.shape_bound, body
    facts = map_facts("""\
        import tensorflow as tf
        ds = tf.data.Dataset.range(8).map(lambda x: x['image'])
    """)
    assert not facts.shape_bound  # a feature by name, not a slice of the element


def test_returned_expression_of_a_module_level_def_that_only_returns():
    facts = map_facts('''\
        import tensorflow as tf

        def scale(x):
            """uint8 -> float."""
            return tf.one_hot(x, 10)

        ds = tf.data.Dataset.range(8).map(scale)
    ''')
    assert isinstance(facts.returned, cst.Call) and facts.elementwise
    facts = map_facts("""\
        import tensorflow as tf

        def decode(x):
            y = tf.io.decode_png(x)
            return y

        ds = tf.data.Dataset.range(8).map(decode)
    """)
    assert facts.known and facts.returned is None and not facts.elementwise


def test_a_partial_is_not_read_as_what_it_returns():
    facts = map_facts("""\
        import functools
        import tensorflow as tf

        def scale(x, k):
            return x * k

        ds = tf.data.Dataset.range(8).map(functools.partial(scale, k=2))
    """)
    assert facts.known and facts.returned is None


def test_unknown_calls_are_not_elementwise():
    facts = map_facts("""\
        import tensorflow as tf
        ds = tf.data.Dataset.range(8).map(lambda x: tf.image.resize(x, (8, 8)))
    """)
    assert facts.returned is not None and not facts.elementwise


def test_randomness_inside_the_python_function_a_py_function_wraps():
    facts = map_facts("""\
        import numpy as np
        import tensorflow as tf

        def jitter(x):
            return x + np.random.normal()

        ds = tf.data.Dataset.range(8).map(lambda x: tf.numpy_function(jitter, [x], tf.float64))
    """)
    assert facts.py_function is not None and facts.randomness is None
    assert cst.Module([]).code_for_node(facts.py_function_randomness.func) == "np.random.normal"


def compiled_optimizer(source: str):
    model = build(source)
    (site,) = model.compiles
    return model, site.optimizer


def test_an_optimizer_factory_whose_every_return_builds_one():
    model, optimizer = compiled_optimizer("""\
        import keras

        def make(lr):
            if lr:
                return keras.optimizers.Adam(lr)
            return keras.optimizers.SGD()

        opt = make(1e-3)
        net = keras.Sequential()
        net.compile(optimizer=opt)
    """)
    assert model.is_model_bound_optimizer(optimizer)


def test_factories_that_may_return_something_else_are_not():
    # (A legacy optimizer is model-bound since issue 10: the second model takes over its state.)
    for body in ("if a:\n        return keras.optimizers.Adam()\n    return 'adam'",
                 "def inner():\n        return keras.optimizers.Adam()\n    return inner"):
        model, optimizer = compiled_optimizer(
            "import keras\n\ndef make(a=None):\n    " + body + "\n\n"
            "opt = make()\nnet = keras.Sequential()\nnet.compile(optimizer=opt)\n")
        assert not model.is_model_bound_optimizer(optimizer), body


def test_pydataset_classes_and_their_base_init_calls():
    model = build("""\
        import keras
        from keras.utils import PyDataset

        class A(keras.utils.PyDataset):
            def __init__(self, paths, **kwargs):
                super().__init__(**kwargs)
                self.paths = paths

        class B(PyDataset):
            def __init__(self, paths):
                PyDataset.__init__(self, workers=4)

                def later():
                    super().__init__(workers=1)

        class C(PyDataset):
            def __len__(self):
                return 1

        class D:
            def __init__(self):
                self.workers = 2
    """)
    a, b, c = model.pydataset_classes()
    assert [cls.name.value for cls in (a, b, c)] == ["A", "B", "C"]
    (call_a,) = model.base_init_calls(a)
    assert [arg.star for arg in call_a.args] == ["**"]
    (call_b,) = model.base_init_calls(b)  # the nested def's call is not `__init__`'s own
    assert [arg.keyword.value for arg in call_b.args] == ["workers"]  # `self` dropped
    assert model.base_init_calls(c) is None
    init_a = model.methods[a]["__init__"]
    assert model.sets_self_attribute(init_a, "paths")
    assert not model.sets_self_attribute(init_a, "workers")


def test_call_sites_know_the_function_whose_own_body_makes_them():
    model = build("""\
        import tensorflow as tf

        def outer():
            tf.print(1)

            def inner():
                tf.print(2)

        tf.print(3)
    """)
    owners = {cst.Module([]).code_for_node(site.call.args[0].value): site.function
              for site in model.calls if site.qualified_name == "tensorflow.print"}
    assert owners["1"].name.value == "outer"
    assert owners["2"].name.value == "inner"
    assert owners["3"] is None


# The model's one set of batching methods now includes `sparse_batch` and
# `bucket_by_sequence_length` (PL103 had them, PL201/PL203/PL205 did not).
def test_shuffle_after_bucketing_shuffles_batches():
    found = check_source(dedent("""\
        import tensorflow as tf
        ds = tf.data.TFRecordDataset(files).bucket_by_sequence_length(len, [8], [4, 4]).shuffle(100)
    """), select=["PL203"])
    assert [d.code for d in found] == ["PL203"]
    assert "bucket_by_sequence_length" in found[0].message


def test_a_small_shuffle_of_sparse_batches_is_not_a_tiny_example_buffer():
    source = dedent("""\
        import tensorflow as tf
        ds = tf.data.TFRecordDataset(files).{}.shuffle(10)
    """)
    assert check_source(source.format("map(parse)"), select=["PL205"])
    assert not check_source(source.format("sparse_batch(8, [4])"), select=["PL205"])


def test_a_function_given_by_name_is_known_only_when_the_catalogue_knows_it():
    """`map(parse)` with `parse` imported from elsewhere: not stateless, and not known to be
    deterministic either (the probe's cache advice asks `known`)."""
    import libcst as cst

    from pipelint.model import PipelineModel

    source = ("import tensorflow as tf\nimport keras\nfrom utils import parse\n"
              "rescale = keras.layers.Rescaling(0.5)\n"
              "a = tf.data.Dataset.range(3).map(parse)\n"
              "b = tf.data.Dataset.range(3).map(tf.io.serialize_tensor)\n"
              "c = tf.data.Dataset.range(3).map(rescale)\n"
              "d = tf.data.Dataset.range(3).map(tf.image.random_flip_left_right)\n")
    model = PipelineModel.build(cst.parse_module(source), source)
    facts = {model.node_code(site.op.call.args[0].value): site.op.facts for site in model.ops("map")}
    assert not facts["parse"].known and not facts["parse"].stateless and facts["parse"].stateful_call is not None
    assert facts["tf.io.serialize_tensor"].known and facts["tf.io.serialize_tensor"].stateless
    assert facts["rescale"].known and facts["rescale"].stateless
    assert facts["tf.image.random_flip_left_right"].known and facts["tf.image.random_flip_left_right"].randomness


def test_keras_applications_preprocess_input_is_stateless():
    # Keras 3.15.1 applications/imagenet_utils.py: scaling and the ImageNet mean with keras.ops.
    model = build("""\
        import tensorflow as tf
        import keras
        a = tf.data.Dataset.range(3).map(tf.keras.applications.resnet50.preprocess_input)
        b = tf.data.Dataset.range(3).map(lambda x, y: (keras.applications.efficientnet.preprocess_input(x), y))
        c = tf.data.Dataset.range(3).map(tf.keras.applications.resnet50.decode_predictions)
    """)
    stateless = [site.op.facts.stateless for site in model.ops("map")]
    assert stateless == [True, True, False]


def test_the_validation_half_of_subset_both_is_not_shuffled():
    # Keras 3.15.1 utils/image_dataset_utils.py: `val_dataset` is built with shuffle=False.
    for helper in ("image_dataset_from_directory", "text_dataset_from_directory", "audio_dataset_from_directory"):
        model = build(f"""\
            import tensorflow as tf
            train, val = tf.keras.utils.{helper}("d", validation_split=0.2, subset="both", seed=1)
            train = train.cache()
            val = val.cache()
        """)
        halves = [sorted(op.name for path in site.prefixes for op in path.all_ops()) for site in model.ops("cache")]
        assert halves == [["batch", "prefetch", "shuffle"], ["batch", "prefetch"]], helper
    both = check_source(dedent("""\
        import tensorflow as tf
        train, val = tf.keras.utils.image_dataset_from_directory("d", validation_split=0.2, subset="both", seed=1)
        train = train.cache()
        val = val.cache()
    """), "t.py", select=["PL201"])
    assert [d.line for d in both] == [3]


def test_calls_in_and_nodes_of_find_what_the_libcst_visitors_find():
    """`calls_in` and `nodes_of` walk the fields themselves (libcst's visitor is slow): the same
    nodes as `CallCollector` (no call in a `raise`) and a visitor of assignments."""
    from pipelint.model.functions import CallCollector, calls_in
    from pipelint.model.syntax import nodes_of

    module = cst.parse_module(dedent("""\
        @register(name=key())
        def f(a=default(), *b, c: hint() = g(), **d) -> out():
            x = y = [load(p) for p in paths() if keep(p)]
            z: int = (lambda q: q.m())(f"{fmt(1)!r:{width()}}")
            del items[pick()]
            with ctx() as (u, v), other():
                assert ok(), why()
            if not flag():
                raise ValueError(message())
            async def inner():
                await wait(); return {k(): v() for k, v in pairs()}
            return x if test() else z[slice_of():stop()]
        class K(Base(), metaclass=meta()):
            n = count()
            def m(self): yield from gen()
    """))

    class Assigns(cst.CSTVisitor):
        def __init__(self) -> None:
            self.found: list[cst.Assign] = []

        def visit_Assign(self, node: cst.Assign) -> None:
            self.found.append(node)

    calls = CallCollector.of(module).calls
    assert len(calls) > 20 and sorted(map(id, calls_in(module))) == sorted(map(id, calls))
    assigns = Assigns()
    module.visit(assigns)
    assert len(assigns.found) == 2 and sorted(map(id, nodes_of(module, cst.Assign))) == sorted(map(id, assigns.found))
