# generated from codegen/_vocab/activations.yaml by opgen — do not edit (opgen 0.1.0)
"""The activation library: `Activation.leaky_relu(alpha=0.1)`, or a plain name such as "tanh".

Declared once in codegen/_vocab/activations.yaml; the same declaration gives the kernels their
device functions and the reference pages their table. Functions:
    identity(): x
    linear(alpha=1.0, beta=0.0): alpha·x + beta
    tanh(): tanh(x)
    scaled_tanh(alpha=1.0, beta=1.0): alpha·tanh(beta·x)
    sigmoid(): 1 / (1 + e^(−x))
    hard_sigmoid(alpha=0.2, beta=0.5): max(0, min(alpha·x + beta, 1))
    relu(): max(0, x)
    leaky_relu(alpha=0.01): x if x ≥ 0, else alpha·x
    thresholded_relu(alpha=1.0): x if x > alpha, else 0
    elu(alpha=1.0): x if x ≥ 0, else alpha·(e^x − 1)
    scaled_elu(alpha=1.6732631921768188, gamma=1.0507010221481323): gamma·x if x > 0, else gamma·(alpha·e^x − alpha)
    softsign(): x / (1 + |x|)
    softplus(steepness=1.0): ln(1 + e^(steepness·x)) / steepness
    parametric_softplus(alpha=1.0, beta=1.0): alpha·ln(1 + e^(beta·x))
"""

from __future__ import annotations

from codegen.runtime.activations import ActivationBase, ActivationSpec, ParamSpec


class Activation(ActivationBase):
    """An activation function of the library with its parameter values, immutable and hashable:
    `Activation.leaky_relu(alpha=0.1)` or `Activation("leaky_relu", alpha=0.1)`. Ops that take
    activations also accept the plain name ("tanh"): the function with its default parameters.
    An unknown name or parameter raises an error that lists the valid ones.
    """

    __slots__ = ()
    LIBRARY = (
        ActivationSpec('identity', (), 'x'),
        ActivationSpec('linear', (ParamSpec('alpha', 1.0), ParamSpec('beta', 0.0)), 'alpha·x + beta'),
        ActivationSpec('tanh', (), 'tanh(x)'),
        ActivationSpec('scaled_tanh', (ParamSpec('alpha', 1.0), ParamSpec('beta', 1.0)), 'alpha·tanh(beta·x)'),
        ActivationSpec('sigmoid', (), '1 / (1 + e^(−x))'),
        ActivationSpec('hard_sigmoid', (ParamSpec('alpha', 0.2), ParamSpec('beta', 0.5)), 'max(0, min(alpha·x + beta, 1))'),
        ActivationSpec('relu', (), 'max(0, x)'),
        ActivationSpec('leaky_relu', (ParamSpec('alpha', 0.01),), 'x if x ≥ 0, else alpha·x'),
        ActivationSpec('thresholded_relu', (ParamSpec('alpha', 1.0),), 'x if x > alpha, else 0'),
        ActivationSpec('elu', (ParamSpec('alpha', 1.0),), 'x if x ≥ 0, else alpha·(e^x − 1)'),
        ActivationSpec('scaled_elu', (ParamSpec('alpha', 1.6732631921768188), ParamSpec('gamma', 1.0507010221481323)), 'gamma·x if x > 0, else gamma·(alpha·e^x − alpha)'),
        ActivationSpec('softsign', (), 'x / (1 + |x|)'),
        ActivationSpec('softplus', (ParamSpec('steepness', 1.0, 1.0, None),), 'ln(1 + e^(steepness·x)) / steepness'),
        ActivationSpec('parametric_softplus', (ParamSpec('alpha', 1.0), ParamSpec('beta', 1.0)), 'alpha·ln(1 + e^(beta·x))'),
    )
    SLOTS = 2

    @classmethod
    def identity(cls, **unknown: float) -> Activation:
        """identity: x."""
        return cls('identity', **unknown)

    @classmethod
    def linear(cls, alpha: float = 1.0, beta: float = 0.0, **unknown: float) -> Activation:
        """linear: alpha·x + beta.

        Args:
            alpha: The slope. Default 1.0.
            beta: The offset. Default 0.0.
        """
        return cls('linear', alpha=alpha, beta=beta, **unknown)

    @classmethod
    def tanh(cls, **unknown: float) -> Activation:
        """tanh: tanh(x)."""
        return cls('tanh', **unknown)

    @classmethod
    def scaled_tanh(cls, alpha: float = 1.0, beta: float = 1.0, **unknown: float) -> Activation:
        """scaled_tanh: alpha·tanh(beta·x).

        Args:
            alpha: The output scale. Default 1.0.
            beta: The input scale. Default 1.0.
        """
        return cls('scaled_tanh', alpha=alpha, beta=beta, **unknown)

    @classmethod
    def sigmoid(cls, **unknown: float) -> Activation:
        """sigmoid: 1 / (1 + e^(−x))."""
        return cls('sigmoid', **unknown)

    @classmethod
    def hard_sigmoid(cls, alpha: float = 0.2, beta: float = 0.5, **unknown: float) -> Activation:
        """hard_sigmoid: max(0, min(alpha·x + beta, 1)).

        Args:
            alpha: The slope. Default 0.2.
            beta: The offset. Default 0.5.
        """
        return cls('hard_sigmoid', alpha=alpha, beta=beta, **unknown)

    @classmethod
    def relu(cls, **unknown: float) -> Activation:
        """relu: max(0, x)."""
        return cls('relu', **unknown)

    @classmethod
    def leaky_relu(cls, alpha: float = 0.01, **unknown: float) -> Activation:
        """leaky_relu: x if x ≥ 0, else alpha·x.

        Args:
            alpha: The slope for x < 0. Default 0.01.
        """
        return cls('leaky_relu', alpha=alpha, **unknown)

    @classmethod
    def thresholded_relu(cls, alpha: float = 1.0, **unknown: float) -> Activation:
        """thresholded_relu: x if x > alpha, else 0.

        Args:
            alpha: The threshold. Default 1.0.
        """
        return cls('thresholded_relu', alpha=alpha, **unknown)

    @classmethod
    def elu(cls, alpha: float = 1.0, **unknown: float) -> Activation:
        """elu: x if x ≥ 0, else alpha·(e^x − 1).

        Args:
            alpha: The scale for x < 0. Default 1.0.
        """
        return cls('elu', alpha=alpha, **unknown)

    @classmethod
    def scaled_elu(cls, alpha: float = 1.6732631921768188, gamma: float = 1.0507010221481323, **unknown: float) -> Activation:
        """scaled_elu: gamma·x if x > 0, else gamma·(alpha·e^x − alpha).

        Args:
            alpha: The scale of the negative part. Default 1.6732631921768188.
            gamma: The overall scale. Default 1.0507010221481323.
        """
        return cls('scaled_elu', alpha=alpha, gamma=gamma, **unknown)

    @classmethod
    def softsign(cls, **unknown: float) -> Activation:
        """softsign: x / (1 + |x|)."""
        return cls('softsign', **unknown)

    @classmethod
    def softplus(cls, steepness: float = 1.0, **unknown: float) -> Activation:
        """softplus: ln(1 + e^(steepness·x)) / steepness.

        Args:
            steepness: The steepness s (DirectML: at least 1). Default 1.0, at least 1.0.
        """
        return cls('softplus', steepness=steepness, **unknown)

    @classmethod
    def parametric_softplus(cls, alpha: float = 1.0, beta: float = 1.0, **unknown: float) -> Activation:
        """parametric_softplus: alpha·ln(1 + e^(beta·x)).

        Args:
            alpha: The output scale. Default 1.0.
            beta: The input scale. Default 1.0.
        """
        return cls('parametric_softplus', alpha=alpha, beta=beta, **unknown)


ActivationLike = str | Activation
"""An activation argument: a name from the library (default parameters) or an `Activation`."""
