"""Bahdanau et al.'s additive attention (2015) on the seed's GRU decoder: score_j = v · tanh(W [enc_j; h] + b).
The seed's AttentionDecoderRNN scores with one Linear(2H, 1), whose hidden-state part adds the same to every
position and so cannot change the weights; this decoder is the seed's with only the score replaced, written
from the paper's definition, as the reference for attnscope's attention_score "additive"."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def additive_decoder(rnn, hidden_size, output_size):
    """The seed's AttentionDecoderRNN class (from the module rnn) with attention Linear(2H, H) and v
    Linear(H, 1, bias=False)."""

    class AdditiveDecoderRNN(rnn.AttentionDecoderRNN):
        def __init__(self):
            super().__init__(hidden_size, output_size)
            self.attention = nn.Linear(hidden_size * 2, hidden_size)
            self.v = nn.Linear(hidden_size, 1, bias=False)

        def forward(self, input_step, hidden, encoder_outputs):
            embedded = self.embedding(input_step)  # [B, 1, H]
            expanded = hidden.transpose(0, 1).expand(-1, encoder_outputs.size(1), -1)  # [B, S, H]
            energy = torch.tanh(self.attention(torch.cat((encoder_outputs, expanded), dim=2)))  # [B, S, H]
            attn_weights = F.softmax(self.v(energy).squeeze(-1), dim=1)  # [B, S]
            context = torch.bmm(attn_weights.unsqueeze(1), encoder_outputs)  # [B, 1, H]
            output, hidden = self.gru(torch.cat((embedded, context), dim=2), hidden)
            output = F.log_softmax(self.out(output.squeeze(1)), dim=1)  # [B, V]
            return output, hidden, attn_weights

    return AdditiveDecoderRNN()
