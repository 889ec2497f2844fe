// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @notice One transaction paying several recipients from the caller's approved tokens, as a multisend or a Safe
/// batch does: each payment is its own Transfer log of the token, all in one receipt. For tests only.
contract TestMultisend {
    function send(IERC20 token, address[] calldata recipients, uint256[] calldata amounts) external {
        require(recipients.length == amounts.length, "lengths differ");
        for (uint256 i = 0; i < recipients.length; i++) {
            require(token.transferFrom(msg.sender, recipients[i], amounts[i]), "transfer failed");
        }
    }
}
