"""Plain Python loops over samples, units and outputs, with scalar arithmetic."""


def mlp_step(params, x, y, velocity, lr, momentum):
    W1, b1, W2, b2 = params["W1"], params["b1"], params["W2"], params["b2"]
    n, d = x.shape
    h, k = W2.shape
    gW1 = [[0.0] * h for _ in range(d)]
    gb1 = [0.0] * h
    gW2 = [[0.0] * k for _ in range(h)]
    gb2 = [0.0] * k
    total = 0.0
    for i in range(n):
        z = [sum(x[i, m] * W1[m, j] for m in range(d)) + b1[j] for j in range(h)]
        a = [zj if zj > 0 else 0.0 for zj in z]
        for o in range(k):
            pred = sum(a[j] * W2[j, o] for j in range(h)) + b2[o]
            err = pred - y[i, o]
            total += err * err
            dpred = 2.0 * err / (n * k)
            gb2[o] += dpred
            for j in range(h):
                gW2[j][o] += a[j] * dpred
                if z[j] > 0:
                    gb1[j] += dpred * W2[j, o]
                    for m in range(d):
                        gW1[m][j] += x[i, m] * dpred * W2[j, o]
    grads = {"W1": gW1, "b1": gb1, "W2": gW2, "b2": gb2}
    for name, g in grads.items():
        p, v = params[name], velocity[name]
        for index in range(p.shape[0]):
            if p.ndim == 1:
                v[index] = momentum * v[index] + g[index]
                p[index] = p[index] - lr * v[index]
            else:
                for col in range(p.shape[1]):
                    v[index, col] = momentum * v[index, col] + g[index][col]
                    p[index, col] = p[index, col] - lr * v[index, col]
    return total / (n * k)
